// The client of `catalog lsp`: starts the server on stdio for the dbt project's SQL and YAML files.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("catalog");
  const server = {
    command: config.get("command", "catalog"),
    args: config.get("args", ["lsp"]),
    options: { env: { ...process.env, ...config.get("env", {}) } },
  };
  client = new LanguageClient("catalog", "catalog lsp", server, {
    documentSelector: [
      { scheme: "file", language: "sql" },
      { scheme: "file", language: "jinja-sql" },
      { scheme: "file", language: "yaml" },
    ],
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
