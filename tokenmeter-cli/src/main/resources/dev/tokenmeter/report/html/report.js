// Draws report.html's charts from the tm-data JSON with the helpers of charts.js (tm).
(function () {
  'use strict';
  const { data, pick, make, axis, line, band, phaseShade } = tm;

  const curve = data.curve;
  const labels = curve.map((c) => c.label);
  const loadAxis = axis('load (' + data.loadAxis + ')');
  // With --repeat each point is a planned stage: the mean over its repeats, and around it the
  // confidence interval of that mean as a band (curve[].ci); without, no bands.
  const rep = data.repeats;
  const mean = rep ? ', mean of ' + rep.count + ' repeats' : '';
  function bands(label, field, i, extra) {
    if (!rep) return [];
    const end = (k) => curve.map((c) => (c.ci && c.ci[field] ? c.ci[field][k] : null));
    return band(label + ' ' + Math.round(rep.confidence * 100) + '% CI', end(0), end(1), i)
      .map((d) => Object.assign(d, extra || {}));
  }
  make('chart-degradation', {
    type: 'line',
    data: { labels: labels, datasets: [
      line('Per-user TPS p50 (tokens/s' + mean + ')', curve.map((c) => c.userP50), 0),
      line('Per-user TPS p10, slowest tenth (tokens/s' + mean + ')', curve.map((c) => c.userP10), 0, { borderDash: [6, 4] }),
      line('Aggregate output tokens/s' + mean, curve.map((c) => c.aggTps), 1, { yAxisID: 'y2' }),
      line('Fluid threshold (' + data.fluidTps + ' tokens/s)', curve.map(() => data.fluidTps), 5,
        { borderDash: [2, 4], pointRadius: 0, borderWidth: 1 }),
      ...bands('Per-user TPS p50', 'userP50', 0),
      ...bands('Per-user TPS p10', 'userP10', 0),
      ...bands('Aggregate output tokens/s', 'aggTps', 1, { yAxisID: 'y2' })
    ] },
    options: { interaction: { mode: 'index', intersect: false }, scales: {
      x: loadAxis, y: axis('per-user tokens/s', { beginAtZero: true }),
      y2: axis('aggregate tokens/s', { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false } }) } }
  });
  // summary.json's repeats have p50 and p99 only.
  const percentiles = rep ? ['p50', 'p99'] : ['p50', 'p90', 'p99'];
  for (const metric of ['ttft', 'tpot']) {
    const name = metric.toUpperCase();
    const datasets = percentiles.map((p, i) => line(name + ' ' + p + ' (ms' + mean + ')', curve.map((c) => c[metric][p]), i));
    percentiles.forEach((p, i) => datasets.push(...bands(name + ' ' + p, metric + p.toUpperCase(), i)));
    make('chart-' + metric, {
      type: 'line',
      data: { labels: labels, datasets: datasets },
      options: { interaction: { mode: 'index', intersect: false },
        scales: { x: loadAxis, y: axis(name + ' (ms)', { beginAtZero: true }) } }
    });
  }

  for (const stage of data.stages) {
    const s = stage.series;
    if (!s) continue;
    // Each value covers [i, i + 1) intervals from the stage start: plotted at its middle.
    const at = (values) => values.map((v, i) => ({ x: (i + 0.5) * s.interval, y: v }));
    const shade = { phaseShade: { phases: s.phases } };
    const seconds = axis('seconds from the stage start', { type: 'linear', min: 0, offset: false });
    make('chart-stage-' + stage.index + '-tps', {
      type: 'line',
      data: { datasets: [
        line('Output tokens/s', at(s.tps), 0, { pointRadius: 0 }),
        line('Requests in flight', at(s.inFlight), 3, { pointRadius: 0, yAxisID: 'y2' })
      ] },
      options: { plugins: shade, scales: { x: seconds, y: axis('tokens/s', { beginAtZero: true }),
        y2: axis('requests in flight', { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false } }) } },
      plugins: [phaseShade]
    });
    make('chart-stage-' + stage.index + '-latency', {
      type: 'line',
      data: { datasets: [
        // Points drawn: a second without a first token has no mean, so at low load most seconds are
        // gaps and a line alone would leave the chart blank.
        line('Mean TTFT (ms)', at(s.ttft), 2, { pointRadius: 2 }),
        line('Failed requests', at(s.errors), 1, { type: 'bar', yAxisID: 'y2' })
      ] },
      options: { plugins: shade, scales: { x: seconds, y: axis('TTFT (ms)', { beginAtZero: true }),
        y2: axis('failed requests per second', { position: 'right', beginAtZero: true,
          ticks: { precision: 0 }, grid: { drawOnChartArea: false } }) } },
      plugins: [phaseShade]
    });
  }

  for (const stage of data.stages) {
    const v = stage.server;
    if (!v || !stage.series) continue;
    // The server's scrapes, at their own times from the stage start: the client's x axis.
    const at = (values) => values.map((y, i) => ({ x: v.t[i], y: y }));
    make('chart-stage-' + stage.index + '-server', {
      type: 'line',
      data: { datasets: [
        line('Requests waiting (queue depth)', at(v.waiting), 1, { pointRadius: 2 }),
        line('Requests running', at(v.running), 3, { pointRadius: 2 }),
        line('KV-cache usage (%)', at(v.kv), 4, { pointRadius: 2, yAxisID: 'y2', borderDash: [4, 3] })
      ] },
      options: { plugins: { phaseShade: { phases: stage.series.phases } },
        scales: { x: axis('seconds from the stage start', { type: 'linear', min: 0, offset: false }),
          y: axis('requests', { beginAtZero: true }),
          y2: axis('KV cache (%)', { position: 'right', min: 0, max: 100, grid: { drawOnChartArea: false } }) } },
      plugins: [phaseShade]
    });
  }

  // GPU power and energy (--gpu-metrics, or simulate's model): against the load, and per stage in time.
  const e = data.energy;
  if (e) {
    make('chart-energy', {
      type: 'line',
      data: { labels: e.labels, datasets: [
        line('Mean power, all GPUs (W)', e.power, 1),
        line('Mean utilisation (%)', e.util, 3, { borderDash: [4, 3] }),
        line('Energy per output token (J)', e.joulesPerToken, 2, { yAxisID: 'y2' })
      ] },
      options: { interaction: { mode: 'index', intersect: false }, scales: {
        x: axis('stage'), y: axis('W, %', { beginAtZero: true }),
        y2: axis('J per output token', { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false } }) } }
    });
  }
  for (const stage of data.stages) {
    const g = stage.gpu;
    if (!g || !stage.series) continue;
    const at = (values) => values.map((y, i) => ({ x: g.t[i], y: y }));
    make('chart-stage-' + stage.index + '-gpu', {
      type: 'line',
      data: { datasets: [
        line('Power, all GPUs (W)', at(g.power), 1, { pointRadius: 2 }),
        line('Mean utilisation (%)', at(g.util), 3, { pointRadius: 2, yAxisID: 'y2', borderDash: [4, 3] })
      ] },
      options: { plugins: { phaseShade: { phases: stage.series.phases } },
        scales: { x: axis('seconds from the stage start', { type: 'linear', min: 0, offset: false }),
          y: axis('W', { beginAtZero: true }),
          y2: axis('utilisation (%)', { position: 'right', min: 0, max: 100, grid: { drawOnChartArea: false } }) } },
      plugins: [phaseShade]
    });
  }

  for (const metric of ['ttft', 'itl']) {
    make('chart-cdf-' + metric, {
      type: 'line',
      data: { datasets: data.stages.map((stage, i) => line(stage.label,
        stage.cdf[metric].filter((p) => p[0] > 0).map((p) => ({ x: p[0], y: p[1] })), i, { pointRadius: 0 })) },
      options: { scales: { x: axis(metric.toUpperCase() + ' (ms)', { type: 'logarithmic' }),
        y: axis('fraction of ' + (metric === 'itl' ? 'tokens' : 'requests'), { min: 0, max: 1 }) } }
    });
  }

  for (const kind of ['input', 'output']) {
    const l = data.lengths[kind];
    make('chart-lengths-' + kind, {
      type: 'bar',
      data: { labels: l.labels, datasets: [{ label: 'Requests', data: l.counts,
        backgroundColor: pick(kind === 'input' ? 3 : 4) }] },
      options: { scales: { x: axis(kind + ' tokens per request'), y: axis('requests', { beginAtZero: true }) } }
    });
  }

  const health = data.stages.filter((s) => s.health);
  make('chart-health', {
    type: 'bar',
    data: { labels: health.map((s) => s.label), datasets: [
      { label: 'Event-loop lag p99 (ms)', data: health.map((s) => s.health.loopLagP99), backgroundColor: pick(0) },
      { label: 'Send lag p99 (ms)', data: health.map((s) => s.health.sendLagP99), backgroundColor: pick(4) },
      line('Loop-lag limit (5 ms)', health.map(() => 5), 1, { type: 'line', borderDash: [2, 4], pointRadius: 0, borderWidth: 1 }),
      line('Send-lag limit (10 ms)', health.map(() => 10), 5, { type: 'line', borderDash: [2, 4], pointRadius: 0, borderWidth: 1 })
    ] },
    options: { scales: { x: axis('stage'), y: axis('ms', { beginAtZero: true }) } }
  });
})();
