-- catalog lsp in Neovim: column lineage on hover, go to definition, references, code lenses.
-- Put this file in ~/.config/nvim/plugin/ (or `:luafile` it). `vim.g.catalog_lsp_cmd` overrides
-- the command, e.g. {"catalog", "lsp", "--memory"} to answer from target/ without Neo4j.
local function start()
  local file = vim.api.nvim_buf_get_name(0)
  local root = vim.fs and vim.fs.dirname(vim.fs.find("dbt_project.yml", { upward = true, path = vim.fs.dirname(file) })[1] or "")
    or vim.fn.fnamemodify(vim.fn.findfile("dbt_project.yml", vim.fn.fnamemodify(file, ":p:h") .. ";"), ":p:h")
  if root == nil or root == "" then
    return
  end
  local config = { name = "catalog", cmd = vim.g.catalog_lsp_cmd or { "catalog", "lsp" }, root_dir = root }
  if vim.lsp.start then -- Neovim 0.8 and later
    vim.lsp.start(config)
  else -- Neovim 0.7
    vim.lsp.buf_attach_client(0, vim.lsp.start_client(config))
  end
end

vim.api.nvim_create_autocmd("FileType", { pattern = { "sql", "yaml" }, callback = start })
