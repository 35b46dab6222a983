// The upstream of the load steps: replays the mock provider's answers to the bench's two bodies
// (captured once by the harness), so the core shared by the load generator and the services is not
// spent generating them (the mock costs more CPU per request than the bare proxy itself). JSON in
// one write; SSE headers flushed, then one frame per turn of the event loop, so each goes out in a
// system call (a TCP segment) of its own, as the mock and real providers send them (writes of one
// turn are corked into one by node:http). Usage: node replay-upstream.mjs <listen-port> <captured.json>
// where captured.json is {"json":{"headers","body"},"stream":{"headers","frames":[...]}}.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [port, file] = process.argv.slice(2);
const captured = JSON.parse(readFileSync(file, 'utf8'));
const jsonBody = Buffer.from(captured.json.body);
const jsonHeaders = { ...captured.json.headers, 'content-length': String(jsonBody.length) };
const frames = captured.stream.frames.map((frame) => Buffer.from(frame));
const STREAM_FLAG = Buffer.from('"stream":true');

function writeFrames(res, index) {
  if (index === frames.length || res.destroyed) {
    res.end();
    return;
  }
  res.write(frames[index]);
  setImmediate(writeFrames, res, index + 1);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    if (Buffer.concat(chunks).includes(STREAM_FLAG)) {
      res.writeHead(200, captured.stream.headers);
      res.flushHeaders();
      writeFrames(res, 0);
    } else {
      res.writeHead(200, jsonHeaders);
      res.end(jsonBody);
    }
  });
});
server.listen(Number(port), '127.0.0.1', () => process.stdout.write(`listening ${port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
