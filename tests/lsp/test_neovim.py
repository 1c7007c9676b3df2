"""A real editor as the client: headless Neovim (Debian's `neovim`) opens a model file of
jaffle-shop, starts `catalog lsp --memory` with editors/neovim/catalog.lua (the set-up the
README gives), and a hover on stg_orders' `as order_total` returns the column's lineage."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from editor import CATALOG
from needs import unavailable
from projects import lay_out
from test_lsp import STG_ORDERS

REPO_EDITORS = __import__("pathlib").Path(__file__).resolve().parents[2] / "editors"

HOVER = """
vim.g.catalog_lsp_cmd = vim.fn.json_decode(os.getenv("CATALOG_LSP_CMD"))
dofile(os.getenv("CATALOG_LUA"))
vim.cmd("edit " .. os.getenv("MODEL"))
vim.bo.filetype = "sql"
local line, col = tonumber(os.getenv("LINE")), tonumber(os.getenv("COL"))
vim.api.nvim_win_set_cursor(0, { line + 1, col })
local text = nil
vim.wait(60000, function()
  if #vim.lsp.buf_get_clients(0) == 0 then return false end
  local got = vim.lsp.buf_request_sync(0, "textDocument/hover", vim.lsp.util.make_position_params(), 5000)
  for _, answer in pairs(got or {}) do
    if answer.result and answer.result.contents then text = answer.result.contents.value end
  end
  return text ~= nil
end, 200)
local out = io.open(os.getenv("OUT"), "w")
out:write(vim.fn.json_encode({ hover = text or vim.NIL }))
out:close()
vim.cmd("qa!")
"""


def test_headless_neovim_hovers_a_column(shared_dir, tmp_path):
    nvim = shutil.which("nvim")
    if nvim is None:
        unavailable("nvim is not installed (apt-get install -y neovim; `make test` installs it where it can)")
    root = lay_out(shared_dir / "corpus" / "jaffle-shop" / "target", tmp_path / "jaffle_shop")
    text = (root / STG_ORDERS).read_text(encoding="utf-8")
    at = text.index("as order_total,") + 3
    line = text.count("\n", 0, at)
    script = tmp_path / "hover.lua"
    script.write_text(HOVER, encoding="utf-8")
    out = tmp_path / "out.json"
    env = {
        "CATALOG_LSP_CMD": json.dumps([*CATALOG, "lsp", "--memory", "--hover-wait", "600"]), "CATALOG_LUA": str(REPO_EDITORS / "neovim" / "catalog.lua"),
        "MODEL": str(root / STG_ORDERS), "LINE": str(line), "COL": str(at - text.rfind("\n", 0, at) - 1), "OUT": str(out),
        "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": f"{__import__('os').path.dirname(sys.executable)}:/usr/bin:/bin",
    }  # fmt: skip
    done = subprocess.run([nvim, "--headless", "-u", "NONE", "-c", f"luafile {script}"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    hover = json.loads(out.read_text(encoding="utf-8"))["hover"]
    assert hover.startswith("**stg_orders.order_total** `DECIMAL(16,2)`\n\n- transformation: derived `CAST((order_total / 100) AS DECIMAL(16, 2))`\n")
    assert "**Downstream**: 2 columns in 2 models (customers, orders)  \n1 metric (order_total)" in hover
