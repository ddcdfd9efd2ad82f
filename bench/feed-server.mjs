// A streaming server that is not tokenmeter's, for comparing clients fairly (bench/peers.sh).
//
// Node.js, no packages. POST /v1/chat/completions answers an OpenAI-style event stream: a role
// chunk, then max_tokens content chunks of one token each, one HTTP chunk (one socket write) per
// token, then a finish chunk, a usage chunk when stream_options.include_usage, and [DONE].
// Every open stream is fed by one ticker: each tick writes the next token of every stream, so all
// streams, and all clients, are fed at the same pace whatever they are (--interval-ms per token;
// 0 = one token per stream per turn of the event loop, as fast as the sockets take them).
//
// It also watches the client's CPU, so the harness need not poll: POST /watch?pid=N starts a
// timeline, one sample every --sample-ms: the time, the client's utime+stime (clock ticks, from
// /proc/N/stat), the tokens written so far, the streams open, the requests started. GET /timeline
// returns it as JSON lines and clears it; GET /stats returns the counters; GET /v1/models lists one
// model so clients' preflights pass.
//
//   node bench/feed-server.mjs --port 18600 --interval-ms 1
import http from 'node:http';
import { readFileSync } from 'node:fs';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
const port = Number(args.port ?? 18600);
const intervalMs = Number(args['interval-ms'] ?? 1);
const sampleMs = Number(args['sample-ms'] ?? 100);
const model = args.model ?? 'feed';

let requests = 0;
let tokens = 0;
const streams = new Set();
const created = Math.floor(Date.now() / 1000);
const head = (id) => `{"id":"${id}","object":"chat.completion.chunk","created":${created},"model":"${model}","choices":[{"index":0,`;

function chat(req, res, body) {
  let spec;
  try {
    spec = JSON.parse(body);
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"the body is not JSON","type":"invalid_request_error"}}');
    return;
  }
  const n = Math.max(1, Number(spec.max_completion_tokens ?? spec.max_tokens ?? 256));
  const id = `chatcmpl-${++requests}`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.socket.setNoDelay(true);
  const prefix = `data: ${head(id)}"delta":{"content":"`;
  res.write(`data: ${head(id)}"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n`);
  const stream = {
    res, left: n, prefix,
    usage: spec.stream_options?.include_usage === true,
    prompt: JSON.stringify(spec.messages ?? '').length >> 2,
    n, id,
  };
  streams.add(stream);
  const drop = () => streams.delete(stream);
  res.on('close', drop);
}

function feed(stream) {
  const { res } = stream;
  if (res.destroyed || res.writableEnded) {
    streams.delete(stream);
    return;
  }
  res.write(`${stream.prefix} tok"},"finish_reason":null}]}\n\n`);
  tokens++;
  if (--stream.left > 0) return;
  streams.delete(stream);
  let tail = `data: ${head(stream.id)}"delta":{},"finish_reason":"length"}]}\n\n`;
  if (stream.usage) {
    tail += `data: {"id":"${stream.id}","object":"chat.completion.chunk","created":${created},"model":"${model}","choices":[],`
      + `"usage":{"prompt_tokens":${stream.prompt},"completion_tokens":${stream.n},"total_tokens":${stream.prompt + stream.n}}}\n\n`;
  }
  res.end(`${tail}data: [DONE]\n\n`);
}

function tick() {
  for (const s of [...streams]) feed(s);
}

if (intervalMs > 0) {
  setInterval(tick, intervalMs);
} else {
  const spin = () => { tick(); setImmediate(spin); };
  setImmediate(spin);
}

// The client's CPU timeline.
let watched = 0;
let timeline = [];
function cpuTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return -1; // the client has exited
  }
}
setInterval(() => {
  if (watched) {
    const own = process.cpuUsage();
    timeline.push({ t_ms: Date.now(), cpu_ticks: cpuTicks(watched), tokens, streams: streams.size, requests, server_cpu_ms: Math.round((own.user + own.system) / 1000) });
  }
}, sampleMs);

const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const url = new URL(req.url, 'http://x');
  if (req.method === 'POST' && url.pathname.endsWith('/chat/completions')) {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => { body += c; });
    req.on('end', () => chat(req, res, body));
    return;
  }
  const json = (o) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify(o)); };
  if (req.method === 'GET' && url.pathname.endsWith('/models')) {
    json({ object: 'list', data: [{ id: model, object: 'model', owned_by: 'feed-server' }] });
  } else if (req.method === 'POST' && url.pathname === '/watch') {
    watched = Number(url.searchParams.get('pid'));
    timeline = [];
    json({ watching: watched });
  } else if (req.method === 'GET' && url.pathname === '/timeline') {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.end(timeline.map((s) => JSON.stringify(s)).join('\n') + '\n');
    timeline = [];
    watched = 0;
  } else if (req.method === 'GET' && url.pathname === '/stats') {
    json({ requests, tokens, streams: streams.size });
  } else {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"not found","type":"invalid_request_error"}}');
  }
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.listen(port, '127.0.0.1', () => process.stderr.write(`feed-server: 127.0.0.1:${port}, one token per write every ${intervalMs} ms per stream\n`));
const stop = () => {
  process.stderr.write(`feed-server: ${requests} requests, ${tokens} tokens\n`);
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
