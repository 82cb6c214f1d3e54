-- Drives Neovim's built-in LSP client against `ruleplay lsp` (tests/interpreter/editor/test_neovim.py): opens a
-- ruleset, waits for the first analysis, makes an edit, then reads the diagnostics, a hover and a definition
-- back, and writes them as JSON to $LSP_OUT. Neovim 0.7 (Debian's): vim.lsp.start_client, vim.diagnostic.
local out = {}
local function finish()
  vim.fn.writefile({vim.fn.json_encode(out)}, vim.env.LSP_OUT)
  vim.cmd("qa!")
end
local ok, err = pcall(function()
  local timeout = tonumber(vim.env.LSP_TIMEOUT) * 1000
  vim.cmd("edit " .. vim.fn.fnameescape(vim.env.LSP_FILE))
  local buf = vim.api.nvim_get_current_buf()
  local client = vim.lsp.start_client({name = "ruleplay", cmd = {vim.env.RULEPLAY, "lsp"},
                                       root_dir = vim.fn.fnamemodify(vim.env.LSP_FILE, ":h")})
  vim.lsp.buf_attach_client(buf, client)
  out.initialized = vim.wait(timeout, function()
    local c = vim.lsp.get_client_by_id(client); return c ~= nil and c.initialized end, 50)
  -- a first analysis of the file as it is: no diagnostic expected
  vim.wait(2000, function() return false end, 50)
  out.before = #vim.diagnostic.get(buf)
  local row, col, old, new = tonumber(vim.env.LSP_ROW), tonumber(vim.env.LSP_COL), vim.env.LSP_OLD, vim.env.LSP_NEW
  vim.api.nvim_buf_set_text(buf, row, col, row, col + #old, {new})
  out.typo_seen = vim.wait(timeout, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out.diagnostics, {lnum = d.lnum, col = d.col, end_col = d.end_col, message = d.message,
                                   code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code),
                                   severity = d.severity})
  end
  local function ask(method, r, c)
    vim.api.nvim_win_set_cursor(0, {r + 1, c})
    local params = vim.lsp.util.make_position_params()
    local answers = vim.lsp.buf_request_sync(buf, method, params, timeout)
    for _, a in pairs(answers or {}) do return a.result end
  end
  local hrow, hcol = tonumber(vim.env.LSP_HOVER_ROW), tonumber(vim.env.LSP_HOVER_COL)
  local hovered = ask("textDocument/hover", hrow, hcol)
  out.hover = hovered and hovered.contents and hovered.contents.value
  out.definition = ask("textDocument/definition", hrow, hcol)
  vim.lsp.stop_client(client)
  vim.wait(2000, function() return vim.lsp.get_client_by_id(client) == nil end, 50)
end)
if not ok then out.error = tostring(err) end
finish()
