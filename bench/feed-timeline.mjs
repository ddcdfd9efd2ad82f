// Reads the timeline bench/feed-server.mjs recorded for one client run (JSON lines on stdin) and
// prints one line: "whole TPS CPUS STARTUP SECS steady TPS CPUS SECS jit WHOLE STEADY", where
//   whole  = from the client's first request to its last token (start-up before the first request
//            left out, the JIT's warm-up left in, the report written after the load left out);
//   steady = the second half of that span, less its last 2 s;
//   TPS    = tokens the server wrote per second in the span; CPUS = the client's CPU-s per 1M of
//            those tokens; STARTUP = the client's CPU-s before its first request;
//   jit    = CPU-s per 1M tokens of the client's JIT compiler threads, whole and steady (sampled
//            once a second, so a span's edges are off by up to a second of compiling).
// Each span starts at the last sample before its first request and ends at the last sample with a
// stream open, so an edge is off by at most one sampling interval.
import { readFileSync } from 'node:fs';

const HZ = 100; // USER_HZ: /proc/PID/stat counts clock ticks
const samples = readFileSync(0, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const fail = (why) => { process.stderr.write(`feed-timeline: ${why}\n`); process.exit(1); };
if (samples.length < 4) fail(`only ${samples.length} samples`);
const r0 = samples[0].requests;
const first = samples.findIndex((s) => s.requests > r0);
if (first < 0) fail('the client sent no request');
const start = Math.max(0, first - 1);
let end = -1;
for (let i = samples.length - 1; i > start; i--) {
  if (samples[i].streams > 0 && samples[i].cpu_ticks >= 0) { end = i; break; }
}
if (end < 0) fail('no stream was open while the client ran');

const span = (a, b) => {
  const s = samples[a], e = samples[b];
  const secs = (e.t_ms - s.t_ms) / 1000;
  const toks = e.tokens - s.tokens;
  const cpu = (e.cpu_ticks - s.cpu_ticks) / HZ;
  const jit = ((e.jit_ticks ?? 0) - (s.jit_ticks ?? 0)) / HZ;
  return { tps: toks / secs, cost: toks > 0 ? cpu / (toks / 1e6) : NaN, jit: toks > 0 ? jit / (toks / 1e6) : NaN, secs };
};
const whole = span(start, end);
const midT = samples[start].t_ms + (samples[end].t_ms - samples[start].t_ms) / 2;
const mid = samples.findIndex((s) => s.t_ms >= midT);
let last = end;
while (last > mid && samples[end].t_ms - samples[last].t_ms < 2000) last--;
const steady = span(mid, last);
const startup = samples[start].cpu_ticks / HZ;
const f = (x, d) => (Number.isFinite(x) ? x.toFixed(d) : 'NaN');
console.log(`whole ${f(whole.tps, 0)} ${f(whole.cost, 3)} ${f(startup, 2)} ${f(whole.secs, 1)} steady ${f(steady.tps, 0)} ${f(steady.cost, 3)} ${f(steady.secs, 1)} jit ${f(whole.jit, 3)} ${f(steady.jit, 3)}`);
