// loopback-bridge: joins two loopback networks (the machine's and a private network namespace's)
// through Unix sockets, which are files and so cross network namespaces.
//
//   node loopback-bridge.mjs tcp-to-unix <port>=<socket> ...   listen on 127.0.0.1:<port>, forward to <socket>
//   node loopback-bridge.mjs unix-to-tcp <socket>=<port> ...   listen on <socket>, forward to 127.0.0.1:<port>
//
// Bytes are passed through unchanged (TLS included), so a client on either side sees the server
// of the other as if it were on its own 127.0.0.1:<port>. Prints "ready" once every listener is up.
import * as fs from 'node:fs';
import * as net from 'node:net';

const [mode, ...pairs] = process.argv.slice(2);
if ((mode !== 'tcp-to-unix' && mode !== 'unix-to-tcp') || pairs.length === 0) {
  process.stderr.write('usage: loopback-bridge.mjs tcp-to-unix <port>=<socket>... | unix-to-tcp <socket>=<port>...\n');
  process.exit(2);
}

function pipe(client, connect) {
  const upstream = connect();
  client.pipe(upstream).pipe(client);
  const close = () => { client.destroy(); upstream.destroy(); };
  client.on('error', close);
  upstream.on('error', close);
  client.on('close', close);
  upstream.on('close', close);
}

const listening = pairs.map((pair) => new Promise((resolve, reject) => {
  const [from, to] = pair.split('=');
  let server;
  if (mode === 'tcp-to-unix') {
    server = net.createServer((c) => pipe(c, () => net.connect({ path: to })));
    server.listen({ host: '127.0.0.1', port: Number(from), exclusive: true }, resolve);
  } else {
    fs.rmSync(from, { force: true });
    server = net.createServer((c) => pipe(c, () => net.connect({ host: '127.0.0.1', port: Number(to) })));
    server.listen({ path: from }, () => { fs.chmodSync(from, 0o600); resolve(); });
  }
  server.on('error', reject);
}));

Promise.all(listening).then(
  () => process.stdout.write('ready\n'),
  (e) => { process.stderr.write(`loopback-bridge: ${e.message}\n`); process.exit(1); },
);
