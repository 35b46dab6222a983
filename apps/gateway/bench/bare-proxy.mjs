// The floor any proxy pays: node:http in, node:http out with a keep-alive agent, bytes piped both
// ways, no parsing. Usage: node bare-proxy.mjs <listen-port> <upstream-base-url>
import { Agent, createServer, request } from 'node:http';

const [port, upstream] = process.argv.slice(2);
const base = new URL(upstream);
const agent = new Agent({ keepAlive: true, maxFreeSockets: 256 });

const server = createServer((req, res) => {
  const headers = { ...req.headers, host: base.host };
  delete headers.connection;
  const up = request(
    {
      host: base.hostname,
      port: base.port,
      method: req.method,
      path: base.pathname.replace(/\/$/, '') + req.url,
      headers,
      agent,
    },
    (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    },
  );
  up.on('error', () => res.destroy());
  res.on('close', () => up.destroy());
  req.pipe(up);
});
server.listen(Number(port), '127.0.0.1', () => process.stdout.write(`listening ${port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
