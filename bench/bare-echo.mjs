// The limit of the stdio benchmark: a child that answers each newline-delimited JSON-RPC request
// with an echo tool result, using JSON.parse and JSON.stringify only. Answers leave as one write
// per chunk read, or earlier once 2 KiB are ready (as the runtime's stdio transport does), so the
// reader starts on them while the rest are made.
let rest = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  const lines = (rest + chunk).split('\n');
  rest = lines.pop();
  let out = '';
  for (const line of lines) {
    if (!line) continue;
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    out += `${JSON.stringify({
      jsonrpc: '2.0',
      id: m.id,
      result: { content: [{ type: 'text', text: m.params?.arguments?.text }] },
    })}\n`;
    if (out.length >= 2048) {
      process.stdout.write(out);
      out = '';
    }
  }
  if (out) process.stdout.write(out);
});
