-- Run by tests/test_lsp_neovim.py: Neovim's own LSP client against `devlint lsp`.
-- Opens DEVLINT_FILE, waits for devlint's diagnostics, applies the preferred quick fix on the
-- first fixable report's line, and writes what it saw to DEVLINT_OUT (JSON). Works from Neovim
-- 0.7 (vim.lsp.start_client; vim.lsp.start and vim.lsp.config came later).
local file, out = os.getenv("DEVLINT_FILE"), os.getenv("DEVLINT_OUT")
local result = { diagnostics = {}, actions = {}, error = vim.NIL }

local function finish()
  result.lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd("qall!")
end

vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = "devlint",
  cmd = { os.getenv("DEVLINT_PYTHON"), "-m", "devlint", "lsp" },
  root_dir = vim.fn.fnamemodify(file, ":h"),
})
vim.lsp.buf_attach_client(buf, client_id)

if not vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 50) then
  result.error = "no diagnostics within 60 s"
  return finish()
end
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  table.insert(result.diagnostics, { line = d.lnum, col = d.col, end_col = d.end_col, code = code,
                                     source = d.source, message = d.message })
end

local client = vim.lsp.get_client_by_id(client_id)
local line = tonumber(os.getenv("DEVLINT_FIX_LINE"))
local params = {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  range = { start = { line = line, character = 0 }, ["end"] = { line = line, character = 0 } },
  context = { diagnostics = {}, only = { "quickfix" } },
}
local responses = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 60000) or {}
for _, response in pairs(responses) do
  for _, action in ipairs(response.result or {}) do
    table.insert(result.actions, action.title)
    if action.isPreferred and action.edit then
      vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
      result.applied = action.title
    end
  end
end
finish()
