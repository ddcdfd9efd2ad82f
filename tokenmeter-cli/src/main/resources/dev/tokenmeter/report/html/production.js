// Draws the production report's charts from the tm-data JSON (production.json itself) with the
// helpers of charts.js (tm).
(function () {
  'use strict';
  const { data, pick, make, axis, line } = tm;

  const curve = data.curve;
  const labels = curve.map((c) => c.label);
  const loadAxis = axis('requests in flight at start (c)');
  make('chart-degradation', {
    type: 'line',
    data: { labels: labels, datasets: [
      line('Per-user TPS p50 (tokens/s)', curve.map((c) => c.decode_tps.p50), 0),
      line('Per-user TPS p10, slowest tenth (tokens/s)', curve.map((c) => c.decode_tps.p10), 0, { borderDash: [6, 4] }),
      line('Threshold (' + data.threshold_tps + ' tokens/s)', curve.map(() => data.threshold_tps), 5,
        { borderDash: [2, 4], pointRadius: 0, borderWidth: 1 }),
      { type: 'bar', label: 'Requests', data: curve.map((c) => c.requests), backgroundColor: pick(5) + '55', yAxisID: 'y2' }
    ] },
    options: { interaction: { mode: 'index', intersect: false }, scales: {
      x: loadAxis, y: axis('per-user tokens/s', { beginAtZero: true }),
      y2: axis('requests', { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false } }) } }
  });
  for (const metric of ['ttft', 'tpot']) {
    const name = metric.toUpperCase();
    make('chart-' + metric, {
      type: 'line',
      data: { labels: labels, datasets: ['p50', 'p90', 'p99'].map((p, i) =>
        line(name + ' ' + p + ' (ms)', curve.map((c) => c[metric + '_ms'][p]), i)) },
      options: { interaction: { mode: 'index', intersect: false },
        scales: { x: loadAxis, y: axis(name + ' (ms)', { beginAtZero: true }) } }
    });
  }
  make('chart-tenants', {
    type: 'bar',
    data: { labels: data.tenants.map((t) => t.tenant), datasets: [
      { label: 'Input tokens', data: data.tenants.map((t) => t.input_tokens), backgroundColor: pick(3) },
      { label: 'Output tokens', data: data.tenants.map((t) => t.output_tokens), backgroundColor: pick(4) }
    ] },
    options: { scales: { x: axis('tenant'), y: axis('tokens', { beginAtZero: true }) } }
  });
  const buckets = data.errors_over_time.buckets;
  const classes = Object.keys(data.errors_by_class);
  const at = (values) => values.map((v, i) => ({ x: buckets[i].start_epoch_ms, y: v }));
  const time = axis('UTC time', { type: 'linear', ticks: { callback: (v) => new Date(v).toISOString().substring(11, 19) } });
  make('chart-errors', {
    type: 'bar',
    data: { datasets: [
      ...classes.map((k, i) => ({ label: k, data: at(buckets.map((b) => b.by_class[k] || 0)),
        backgroundColor: pick(i + 1), stack: 'errors' })),
      line('Requests', at(buckets.map((b) => b.requests)), 0, { type: 'line', pointRadius: 0, yAxisID: 'y2' })
    ] },
    options: { scales: { x: Object.assign(time, { stacked: true }),
      y: axis('failed requests', { beginAtZero: true, stacked: true, ticks: { precision: 0 } }),
      y2: axis('requests', { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false } }) } }
  });
})();
