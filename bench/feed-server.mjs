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
//   node bench/feed-server.mjs --port 18600 --rate 40000     # 40,000 tokens/s shared by the streams
//   node bench/feed-server.mjs --port 18600 --interval-ms 1  # one token per stream every 1 ms
import http from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
const port = Number(args.port ?? 18600);
const intervalMs = Number(args['interval-ms'] ?? 1);
// --rate N: N tokens a second in all, whatever the number of streams: each 1 ms tick writes one
// token to each of the next streams in turn until the time since the last tick has earned its share.
const rate = args.rate === undefined ? 0 : Number(args.rate);
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
  if (res.destroyed || res.writableEnded || stream.left <= 0) {
    streams.delete(stream);
    return false;
  }
  res.write(`${stream.prefix} tok"},"finish_reason":null}]}\n\n`);
  tokens++;
  if (--stream.left > 0) return true;
  streams.delete(stream);
  let tail = `data: ${head(stream.id)}"delta":{},"finish_reason":"length"}]}\n\n`;
  if (stream.usage) {
    tail += `data: {"id":"${stream.id}","object":"chat.completion.chunk","created":${created},"model":"${model}","choices":[],`
      + `"usage":{"prompt_tokens":${stream.prompt},"completion_tokens":${stream.n},"total_tokens":${stream.prompt + stream.n}}}\n\n`;
  }
  res.end(`${tail}data: [DONE]\n\n`);
  return true;
}

function tick() {
  for (const s of [...streams]) feed(s);
}

let earned = 0;
let lastTick = process.hrtime.bigint();
let cursor = 0;
function paced() {
  const now = process.hrtime.bigint();
  earned = Math.min(earned + Number(now - lastTick) / 1e9 * rate, rate / 10); // at most 100 ms of debt
  lastTick = now;
  const open = [...streams];
  if (open.length === 0) {
    earned = 0;
    return;
  }
  for (let tries = 0; earned >= 1 && tries < 4 * open.length; tries++) {
    cursor = (cursor + 1) % open.length;
    if (feed(open[cursor])) earned--;
  }
}

if (rate > 0) {
  setInterval(paced, 1);
} else if (intervalMs > 0) {
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
// The client's JIT compiler threads (HotSpot's "C1/C2 CompilerThre..."), read every 10th sample.
let jitTicks = 0;
let sampleCount = 0;
function compilerTicks(pid) {
  let total = 0;
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        if (!/^C[12] Compiler/.test(readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8'))) continue;
        const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        total += Number(f[11]) + Number(f[12]);
      } catch {
        // the thread ended
      }
    }
  } catch {
    return -1;
  }
  return total;
}
setInterval(() => {
  if (watched) {
    if (sampleCount++ % 10 === 0) {
      const j = compilerTicks(watched);
      if (j >= 0) jitTicks = j;
    }
    const own = process.cpuUsage();
    timeline.push({ t_ms: Date.now(), cpu_ticks: cpuTicks(watched), tokens, streams: streams.size, requests, jit_ticks: jitTicks, server_cpu_ms: Math.round((own.user + own.system) / 1000) });
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
    jitTicks = 0;
    sampleCount = 0;
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
server.listen(port, '127.0.0.1', () => process.stderr.write(`feed-server: 127.0.0.1:${port}, one token per write, ${rate > 0 ? `${rate} tokens/s in all` : `every ${intervalMs} ms per stream`}\n`));
const stop = () => {
  process.stderr.write(`feed-server: ${requests} requests, ${tokens} tokens\n`);
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
