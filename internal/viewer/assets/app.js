'use strict';
// rs-record view: draws what the server sends over one WebSocket.
(() => {
  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const k of kids) e.append(k);
    return e;
  };
  const fmtS = (ns) => (ns / 1e9).toFixed(3);

  let hello = null;
  const streams = new Map(); // id → view
  let selected = -1; // stream whose metadata is shown
  let tag = 0;
  let seeking = false;
  let lastState = null;
  let nStates = 0; // state messages received (read by tests and tools)

  const qs = new URLSearchParams(location.search);
  // The WebSocket carries the page's codec and, beyond loopback, its token.
  const wsQuery = new URLSearchParams();
  for (const k of ['codec', 'token']) {
    if (qs.get(k)) wsQuery.set(k, qs.get(k));
  }
  const wsURL = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws' +
    (wsQuery.toString() ? '?' + wsQuery.toString() : '');
  const ws = new WebSocket(wsURL);
  ws.binaryType = 'arraybuffer';

  const send = (cmd) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    cmd.tag = ++tag;
    ws.send(JSON.stringify(cmd));
  };

  ws.onopen = () => { $('status').textContent = 'connected'; };
  ws.onclose = () => { $('status').textContent = 'disconnected'; };
  ws.onerror = () => { $('status').textContent = 'connection error'; };
  ws.onmessage = (e) => {
    if (typeof e.data === 'string') {
      const m = JSON.parse(e.data);
      if (m.type === 'hello') onHello(m);
      else if (m.type === 'state') onState(m);
      else if (m.type === 'reply') onReply(m);
    } else {
      onFrame(e.data);
    }
  };

  function banner(text) {
    const b = $('banner');
    b.hidden = !text;
    b.textContent = text || '';
  }

  function onHello(h) {
    hello = h;
    const name = h.device['Name'] || 'RealSense device';
    $('title').textContent = h.file ? `${h.file} — ${name}` : `${name} (live)`;
    document.title = 'rs-record view — ' + (h.file || name);
    if (h.recovery) banner(h.recovery);
    $('controls').hidden = !h.playback;
    const seek = $('seek');
    seek.max = String(Math.floor(h.durationNs / 1e6));
    const sch = $('scheme');
    sch.replaceChildren(...h.schemes.map((n, i) => el('option', { value: String(i) }, n)));
    $('device').replaceChildren(...Object.entries(h.device).sort().map(([k, v]) => el('tr', {}, el('td', {}, k), el('td', {}, v))));
    const sensors = $('sensors');
    sensors.replaceChildren();
    for (const s of h.sensors) {
      const opts = el('table', { id: `options-${s.index}`, class: 'options' });
      for (const o of s.options) {
        const row = el('tr', {}, el('td', { title: o.description || '' }, o.name),
          el('td', { id: `opt-${s.index}-${o.id}`, 'data-value': '' }, '—'));
        opts.append(row);
      }
      const info = el('table', {}, ...Object.entries(s.info).sort().map(([k, v]) => el('tr', {}, el('td', {}, k), el('td', {}, v))));
      sensors.append(el('h2', {}, `Sensor ${s.index}: ${s.name}`), info);
      if (s.recommendedFilters && s.recommendedFilters.length) {
        sensors.append(el('div', { class: 'stats' }, 'Recommended filters: ' + s.recommendedFilters.join(', ')));
      }
      sensors.append(el('h3', {}, 'Options'), opts);
    }
    const box = $('streams');
    box.replaceChildren();
    streams.clear();
    for (const s of h.streams) {
      const v = { s, last: null, lastNumber: 0, notShown: 0, pending: null, drawing: false, plot: [] };
      const stats = el('div', { class: 'stats', id: `stats-${s.id}` }, '');
      const title = el('h3', {}, el('span', {}, `${s.name} ${s.format}` + (s.width ? ` ${s.width}x${s.height}` : '') + ` @${s.fps}`));
      const card = el('div', { class: 'card', id: `card-${s.id}`, 'data-stream': s.name }, title);
      if (s.kind === 'video') {
        const c = el('canvas', { id: `canvas-${s.id}`, width: String(s.width), height: String(s.height), 'data-number': '', 'data-seq': '' });
        v.canvas = c;
        v.ctx = c.getContext('2d');
        card.append(c);
        if (s.depth) {
          c.addEventListener('mousemove', (ev) => {
            const r = c.getBoundingClientRect();
            const x = Math.floor((ev.clientX - r.left) * c.width / r.width);
            const y = Math.floor((ev.clientY - r.top) * c.height / r.height);
            send({ cmd: 'hover', id: s.id, x, y });
          });
          c.addEventListener('mouseleave', () => { $('hover').textContent = '\u00a0'; });
        }
      } else if (s.kind === 'motion') {
        const c = el('canvas', { id: `plot-${s.id}`, width: '480', height: '160' });
        v.canvas = c;
        v.ctx = c.getContext('2d');
        v.values = el('div', { class: 'stats', id: `values-${s.id}` }, '');
        card.append(c, v.values);
      } else {
        v.table = el('table', { class: 'pose', id: `pose-${s.id}` });
        card.append(v.table);
      }
      card.append(stats);
      card.addEventListener('click', () => select(s.id));
      v.card = card;
      v.stats = stats;
      streams.set(s.id, v);
      box.append(card);
    }
    const prim = h.streams.find((s) => s.primary) || h.streams[0];
    if (prim) select(prim.id);
  }

  function select(id) {
    selected = id;
    for (const [i, v] of streams) v.card.classList.toggle('selected', i === id);
    const v = streams.get(id);
    $('meta-stream').textContent = v ? `(${v.s.name})` : '';
    showMetadata();
  }

  function showMetadata() {
    const v = streams.get(selected);
    const t = $('metadata');
    if (!v || !v.last) { t.replaceChildren(); return; }
    const h = v.last;
    const rows = [['Frame number', h.number], ['Timestamp (ms)', h.timestampMs.toFixed(3)], ['Timestamp domain', h.domain],
      ['System time (ms)', h.systemTimeMs.toFixed(3)], ...Object.entries(h.metadata).sort()];
    t.replaceChildren(...rows.map(([k, val]) => el('tr', {}, el('td', {}, k), el('td', {}, String(val)))));
  }

  function onFrame(buf) {
    const dv = new DataView(buf);
    const n = dv.getUint32(0, true);
    const h = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 4, n)));
    const v = streams.get(h.id);
    if (!v) return;
    const blob = new Blob([new Uint8Array(buf, 4 + n)], { type: h.codec === 'png' ? 'image/png' : 'image/jpeg' });
    // Keep only the newest picture while one is being decoded.
    if (v.drawing) { v.pending = { h, blob }; return; }
    draw(v, h, blob);
  }

  function draw(v, h, blob) {
    v.drawing = true;
    createImageBitmap(blob).then((bmp) => {
      if (v.canvas.width !== bmp.width || v.canvas.height !== bmp.height) {
        v.canvas.width = bmp.width;
        v.canvas.height = bmp.height;
      }
      v.ctx.drawImage(bmp, 0, 0);
      bmp.close();
      if (v.lastNumber && h.number > v.lastNumber + 1) v.notShown += h.number - v.lastNumber - 1;
      v.lastNumber = h.number;
      v.last = h;
      v.canvas.dataset.number = String(h.number);
      v.canvas.dataset.seq = String(h.seq);
      v.canvas.dataset.scheme = String(h.scheme);
      if (h.id === selected) showMetadata();
    }).catch((err) => {
      banner(`cannot decode a picture of ${v.s.name}: ${err}`);
    }).finally(() => {
      v.drawing = false;
      const p = v.pending;
      v.pending = null;
      if (p) draw(v, p.h, p.blob);
    });
  }

  function onState(m) {
    lastState = m;
    document.body.dataset.states = String(++nStates);
    $('status').textContent = m.ended ? 'End of file' : m.status;
    $('status').dataset.status = m.status;
    const lost = m.streams.reduce((n, s) => n + (s.lost || 0), 0);
    if (m.error) banner(m.error);
    else if (hello && hello.recovery) banner(hello.recovery + (lost ? ` · ${lost} frames could not be read` : ''));
    else banner(lost ? `The bag is damaged: ${lost} frames could not be read` : '');
    if (hello && hello.playback) {
      $('play').textContent = m.status === 'Playing' ? 'Pause' : 'Play';
      const pos = $('position');
      pos.textContent = `${fmtS(m.positionNs)} / ${fmtS(hello.durationNs)} s`;
      pos.dataset.positionNs = String(m.positionNs);
      if (!seeking) $('seek').value = String(Math.floor(m.positionNs / 1e6));
      $('loop').checked = m.loop;
      $('speed').value = String(m.speed);
    }
    $('scheme').value = String(m.scheme);
    for (const s of m.streams) {
      const v = streams.get(s.id);
      if (!v) continue;
      let txt = `${s.fps.toFixed(1)} fps · ${s.delivered} frames · ${s.dropped} dropped`;
      if (s.lost) txt += ` · ${s.lost} lost (damaged bag)`;
      if (v.s.kind === 'video') txt += ` · ${v.notShown} not shown here` + (v.lastNumber ? ` · #${v.lastNumber}` : '');
      v.stats.textContent = txt;
      v.stats.dataset.delivered = String(s.delivered);
      v.stats.dataset.dropped = String(s.dropped);
      v.stats.dataset.number = String(s.number); // the newest frame the server has
      if (v.s.kind === 'motion' && s.samples) plot(v, s.samples);
      if (v.s.kind === 'pose' && s.pose) showPose(v, s.pose);
    }
    for (const o of m.options) {
      const td = $(`opt-${o.sensor}-${o.id}`);
      if (!td) continue;
      const val = String(+o.value.toFixed(6));
      if (td.dataset.value !== val) {
        if (td.dataset.value !== '') td.classList.add('changed');
        td.dataset.value = val;
        td.textContent = val;
      }
    }
  }

  // plot keeps the last 400 samples and draws x, y, z.
  function plot(v, samples) {
    v.plot.push(...samples);
    if (v.plot.length > 400) v.plot.splice(0, v.plot.length - 400);
    const c = v.canvas, g = v.ctx, W = c.width, H = c.height;
    g.fillStyle = '#111';
    g.fillRect(0, 0, W, H);
    let max = 1e-6;
    for (const p of v.plot) for (let k = 1; k < 4; k++) max = Math.max(max, Math.abs(p[k]));
    g.strokeStyle = '#444';
    g.beginPath(); g.moveTo(0, H / 2); g.lineTo(W, H / 2); g.stroke();
    ['#e55', '#5e5', '#59f'].forEach((col, k) => {
      g.strokeStyle = col;
      g.beginPath();
      v.plot.forEach((p, i) => {
        const x = i * W / 400, y = H / 2 - p[k + 1] / max * (H / 2 - 2);
        if (i) g.lineTo(x, y); else g.moveTo(x, y);
      });
      g.stroke();
    });
    const last = v.plot[v.plot.length - 1];
    v.values.textContent = `x ${last[1].toFixed(4)}  y ${last[2].toFixed(4)}  z ${last[3].toFixed(4)}  (scale ±${max.toPrecision(3)})`;
  }

  function showPose(v, p) {
    const f = (a) => a.map((x) => x.toFixed(4)).join(', ');
    const rows = [['translation (m)', f(p.Translation)], ['rotation (x, y, z, w)', f(p.Rotation)],
      ['velocity (m/s)', f(p.Velocity)], ['acceleration (m/s²)', f(p.Acceleration)],
      ['angular velocity (rad/s)', f(p.AngularVelocity)], ['angular acceleration (rad/s²)', f(p.AngularAcceleration)],
      ['tracker confidence', p.TrackerConfidence], ['mapper confidence', p.MapperConfidence]];
    v.table.replaceChildren(...rows.map(([k, val]) => el('tr', {}, el('td', {}, k), el('td', {}, String(val)))));
  }

  function onReply(r) {
    if (r.cmd === 'hover') {
      const h = $('hover');
      if (r.error) { h.textContent = r.error; h.dataset.meters = ''; return; }
      h.textContent = `(${r.x}, ${r.y}): ${r.meters.toFixed(3)} m`;
      h.dataset.meters = String(r.meters);
      return;
    }
    if (r.error) banner(`${r.cmd}: ${r.error}`);
    document.body.dataset.lastReply = `${r.cmd}:${r.tag}:${r.error ? 'error' : 'ok'}`;
  }

  $('play').addEventListener('click', () => send({ cmd: lastState && lastState.status === 'Playing' ? 'pause' : 'play' }));
  $('back').addEventListener('click', () => send({ cmd: 'step', dir: -1 }));
  $('fwd').addEventListener('click', () => send({ cmd: 'step', dir: 1 }));
  const seek = $('seek');
  seek.addEventListener('input', () => { seeking = true; });
  seek.addEventListener('change', () => { seeking = false; send({ cmd: 'seek', t: Number(seek.value) / 1000 }); });
  $('speed').addEventListener('change', (e) => send({ cmd: 'speed', x: Number(e.target.value) }));
  $('loop').addEventListener('change', (e) => send({ cmd: 'loop', on: e.target.checked }));
  $('scheme').addEventListener('change', (e) => send({ cmd: 'scheme', scheme: Number(e.target.value) }));
  document.addEventListener('keydown', (e) => {
    if (!hello || !hello.playback || e.target.tagName === 'SELECT' || e.target.tagName === 'INPUT') return;
    if (e.key === ' ') { e.preventDefault(); $('play').click(); }
    if (e.key === 'ArrowRight') $('fwd').click();
    if (e.key === 'ArrowLeft') $('back').click();
  });
})();
