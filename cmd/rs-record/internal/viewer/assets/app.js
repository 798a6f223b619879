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

  $('camera').addEventListener('change', () => send({ cmd: 'openCamera', name: $('camera').value }));

  function onHello(h) {
    hello = h;
    const name = h.device['Name'] || 'RealSense device';
    $('title').textContent = h.file ? `${h.file} — ${name}` : `${name} (live)`;
    document.title = 'rs-record view — ' + (h.file || name);
    if (h.recovery) banner(h.recovery);
    $('controls').hidden = !h.playback;
    $('camera-pick').hidden = !h.cameras;
    if (h.cameras) send({ cmd: 'cameras' });
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
        if (o.settable) { // a camera's option: set from here
          const ctl = control(`set-${s.index}-${o.id}`, o, (v) => send({ cmd: 'setOption', sensor: s.index, option: o.id, value: v }));
          const input = ctl.querySelector('input, select');
          optionInputs.set(`${s.index}-${o.id}`, input);
          opts.append(el('tr', { class: 'set' }, el('td', {}, ''), ctl.lastChild));
        }
      }
      const info = el('table', {}, ...Object.entries(s.info).sort().map(([k, v]) => el('tr', {}, el('td', {}, k), el('td', {}, v))));
      sensors.append(el('h2', {}, `Sensor ${s.index}: ${s.name}`), info);
      if (s.recommendedFilters && s.recommendedFilters.length) {
        sensors.append(el('div', { class: 'stats' }, 'Recommended filters: ' + s.recommendedFilters.join(', ')));
      }
      sensors.append(el('h3', {}, 'Options'), opts);
    }
    showProcessing(h);
    showOutputTopics(h.outputs || []);
    const box = $('streams');
    box.replaceChildren();
    streams.clear();
    for (const s of h.streams) {
      const v = { s, last: null, lastNumber: 0, notShown: 0, pending: null, drawing: false, plot: [] };
      const stats = el('div', { class: 'stats', id: `stats-${s.id}` }, '');
      const title = el('h3', {}, el('span', {}, `${s.name} ${s.format}` + (s.width ? ` ${s.width}x${s.height}` : '') + ` @${s.fps}`));
      const card = el('div', { class: 'card', id: `card-${s.id}`, 'data-stream': s.name }, title);
      if (!h.playback) { // a camera's stream is started and stopped here
        const on = el('input', { type: 'checkbox', id: `stream-on-${s.id}`, title: 'stream on or off' });
        on.checked = true;
        on.addEventListener('click', (ev) => ev.stopPropagation());
        on.addEventListener('change', () => send({ cmd: 'stream', id: s.id, on: on.checked }));
        v.on = on;
        title.append(el('label', {}, on, ' on'));
        if (s.profiles && s.profiles.length > 1) { // the stream's profile, chosen here
          const sel = el('select', { id: `profile-${s.id}`, title: 'resolution, frame rate and format' },
            ...s.profiles.map((p, i) => el('option', { value: String(i) }, `${p.width}x${p.height} @${p.fps} ${p.format}`)));
          sel.value = String(s.profile);
          sel.addEventListener('click', (ev) => ev.stopPropagation());
          sel.addEventListener('change', () => send({ cmd: 'profile', id: s.id, profile: Number(sel.value) }));
          title.append(' ', sel);
        }
      }
      if (s.kind === 'video') {
        const c = el('canvas', { id: `canvas-${s.id}`, width: String(s.width), height: String(s.height), 'data-number': '', 'data-seq': '' });
        c.style.width = `${s.width}px`; // a decimated picture is shown at the stream's size
        v.canvas = c;
        v.ctx = c.getContext('2d');
        v.zoom = 1;
        c.dataset.zoom = '1';
        const wrap = el('div', { class: 'zoom' });
        wrap.append(c);
        card.append(wrap);
        // The wheel zooms around the pointer; a double click returns.
        c.addEventListener('wheel', (ev) => {
          ev.preventDefault();
          const r = wrap.getBoundingClientRect();
          const px = ev.clientX - r.left, py = ev.clientY - r.top; // in the box
          const z = Math.max(1, Math.min(16, v.zoom * Math.exp(-ev.deltaY * 0.002)));
          // Keep the picture's point under the pointer in place.
          const ox = v.ox || 0, oy = v.oy || 0;
          const ux = (px - ox) / v.zoom, uy = (py - oy) / v.zoom;
          v.ox = z === 1 ? 0 : Math.min(0, Math.max(r.width - r.width * z, px - ux * z));
          v.oy = z === 1 ? 0 : Math.min(0, Math.max(r.height - r.height * z, py - uy * z));
          v.zoom = z;
          c.style.transform = `translate(${v.ox}px, ${v.oy}px) scale(${z})`;
          c.dataset.zoom = z.toFixed(3);
        }, { passive: false });
        c.addEventListener('dblclick', () => { v.zoom = 1; v.ox = v.oy = 0; c.style.transform = ''; c.dataset.zoom = '1'; });
        const pixel = (ev) => {
          const r = c.getBoundingClientRect();
          return [Math.floor((ev.clientX - r.left) * c.width / r.width), Math.floor((ev.clientY - r.top) * c.height / r.height)];
        };
        if (s.depth) {
          c.addEventListener('mousemove', (ev) => {
            const [x, y] = pixel(ev);
            send({ cmd: 'hover', id: s.id, x, y });
          });
          c.addEventListener('click', (ev) => {
            if (rulerOn) rulerPick(s.id, pixel(ev));
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
    $('show3d').parentElement.hidden = !h.streams.some((s) => s.primary && s.format === 'Z16');
    $('cloud-full').parentElement.hidden = $('show3d').parentElement.hidden;
    const prim = h.streams.find((s) => s.primary) || h.streams[0];
    if (prim) select(prim.id);
  }

  // control makes the input of a block's option: a check box for an
  // on/off option, a menu for named values, else a slider with its value.
  // change(value) is called when the user sets it.
  function control(id, o, change) {
    let input, label = null;
    if (o.min === 0 && o.max === 1 && o.step === 1 && !o.values) {
      input = el('input', { id, type: 'checkbox' });
      input.checked = o.value !== 0;
      input.addEventListener('change', () => change(input.checked ? 1 : 0));
      input.setValue = (v) => { input.checked = v !== 0; };
    } else if (o.values) {
      input = el('select', { id }, ...o.values.map((n, i) => el('option', { value: String(o.min + i * o.step) }, n)));
      input.value = String(o.value);
      input.addEventListener('change', () => change(Number(input.value)));
      input.setValue = (v) => { input.value = String(v); };
    } else {
      input = el('input', { id, type: 'range', min: String(o.min), max: String(o.max), step: String(o.step || 'any'), value: String(o.value) });
      label = el('span', { class: 'stats' }, String(+o.value.toFixed(4)));
      input.addEventListener('input', () => { label.textContent = String(+Number(input.value).toFixed(4)); });
      input.addEventListener('change', () => change(Number(input.value)));
      input.setValue = (v) => {
        if (document.activeElement === input) return;
        input.value = String(v);
        label.textContent = String(+v.toFixed(4));
      };
    }
    return el('tr', {}, el('td', { title: `${o.description || ''} (${o.min} to ${o.max}, default ${o.default})` }, o.name),
      label ? el('td', {}, input, ' ', label) : el('td', {}, input));
  }

  const procInputs = { filters: [], colorizer: [] };
  const optionInputs = new Map(); // "sensor-option" → the input that sets a camera's option
  function showProcessing(h) {
    const box = $('filters');
    box.replaceChildren();
    procInputs.filters = [];
    $('processing').hidden = !h.filters || !h.filters.length;
    (h.filters || []).forEach((f, i) => {
      const on = el('input', { id: `filter-${i}`, type: 'checkbox', 'data-name': f.name });
      on.checked = f.on;
      on.addEventListener('change', () => send({ cmd: 'filter', name: f.name, on: on.checked }));
      const opts = el('table', { class: 'controls', id: `filter-${i}-options` });
      const inputs = f.options.map((o) => {
        const row = control(`filter-${i}-${o.id}`, o, (v) => send({ cmd: 'blockOption', name: f.name, option: o.id, value: v }));
        opts.append(row);
        return row.querySelector('input, select');
      });
      procInputs.filters.push({ on, inputs });
      box.append(el('div', { class: 'filter' }, el('label', {}, on, ' ' + f.name), opts));
    });
    const col = $('colorizer');
    col.replaceChildren();
    procInputs.colorizer = (h.colorizer || []).map((o) => {
      const row = control(`colorizer-${o.id}`, o, (v) => send({ cmd: 'blockOption', name: 'Depth Visualization', option: o.id, value: v }));
      col.append(row);
      return row.querySelector('input, select');
    });
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
      ['System time (ms)', h.systemTimeMs.toFixed(3)], ...truthRows(h.truth), ...Object.entries(h.metadata).sort()];
    t.replaceChildren(...rows.map(([k, val]) => el('tr', {}, el('td', {}, k), el('td', {}, String(val)))));
  }

  // The ground truth of a frame of a bag recorded with --ground-truth: the
  // pose of its stream in the scene.
  function truthRows(t) {
    if (!t) return [];
    return [['Ground truth position (m)', t.t.map((v) => v.toFixed(4)).join(', ')],
      ['Ground truth rotation (x, y, z, w)', t.q.map((v) => v.toFixed(5)).join(', ')]];
  }

  function onFrame(buf) {
    const dv = new DataView(buf);
    const n = dv.getUint32(0, true);
    const h = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 4, n)));
    if (h.kind === 'cloud') { cloud.put(h, buf, 4 + n); return; }
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
      if (v.bmp) v.bmp.close();
      v.bmp = bmp; // kept to draw the ruler again over the picture
      if (v.ruler) drawRuler(v);
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
    $('cloud-full').checked = m.cloudFull;
    showRecording(m);
    (m.filters || []).forEach((f, i) => {
      const p = procInputs.filters[i];
      if (!p) return;
      p.on.checked = f.on;
      f.values.forEach((v, k) => p.inputs[k] && p.inputs[k].setValue(v));
    });
    (m.colorizer || []).forEach((v, k) => procInputs.colorizer[k] && procInputs.colorizer[k].setValue(v));
    for (const s of m.streams) {
      const v = streams.get(s.id);
      if (!v) continue;
      let txt = `${s.fps.toFixed(1)} fps · ${s.delivered} frames · ${s.dropped} dropped`;
      if (s.lost) txt += ` · ${s.lost} lost (damaged bag)`;
      if (v.s.kind === 'video') txt += ` · ${v.notShown} not shown here` + (v.lastNumber ? ` · #${v.lastNumber}` : '');
      if (v.on) {
        v.on.checked = !s.off;
        if (s.off) txt = 'stopped · ' + txt;
      }
      v.stats.textContent = txt;
      v.stats.dataset.delivered = String(s.delivered);
      v.stats.dataset.dropped = String(s.dropped);
      v.stats.dataset.number = String(s.number); // the newest frame the server has
      if (v.s.kind === 'motion' && s.samples) plot(v, s.samples);
      if (v.s.kind === 'pose' && s.pose) showPose(v, s.pose);
    }
    showOutputs(m.outputs || []);
    for (const o of m.options) {
      const td = $(`opt-${o.sensor}-${o.id}`);
      if (!td) continue;
      const val = String(+o.value.toFixed(6));
      if (td.dataset.value !== val) {
        if (td.dataset.value !== '') td.classList.add('changed');
        td.dataset.value = val;
        td.textContent = val;
        const input = optionInputs.get(`${o.sensor}-${o.id}`);
        if (input) input.setValue(o.value);
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

  // The unit outputs recorded in the bag (package units): per topic a row
  // with its latest output at the position, and a plot of a numeric one.
  const outputs = new Map(); // topic → { row, time, value, canvas, plot }
  function showOutputTopics(topics) {
    const table = $('outputs-table');
    table.replaceChildren();
    outputs.clear();
    $('outputs').hidden = topics.length === 0;
    topics.forEach((o, i) => {
      const time = el('td', { class: 'stats' }, '—');
      const value = el('td', { id: `output-${i}`, 'data-topic': o.topic, 'data-t-ns': '', 'data-value': '' }, '—');
      const canvas = el('canvas', { width: '320', height: '40' });
      canvas.hidden = true;
      table.append(el('tr', {}, el('td', { title: `schema version ${o.version}, ${o.count} outputs` }, o.topic), time),
        el('tr', {}, el('td', { colspan: '2' }, value, canvas)));
      outputs.set(o.topic, { time, value, canvas, plot: [] });
    });
  }
  function showOutputs(list) {
    const seen = new Set();
    for (const o of list) {
      const v = outputs.get(o.topic);
      if (!v) continue;
      seen.add(o.topic);
      const val = JSON.stringify(o.value);
      if (v.value.dataset.tNs === String(o.tNs) && v.value.dataset.value === val) continue;
      v.value.dataset.tNs = String(o.tNs);
      v.value.dataset.value = val;
      v.value.textContent = val;
      v.time.textContent = `${fmtS(o.tNs)} s`;
      if (typeof o.value === 'number') plotOutput(v, o.tNs, o.value);
    }
    for (const [topic, v] of outputs) {
      if (seen.has(topic) || v.value.dataset.tNs === '') continue;
      v.value.dataset.tNs = v.value.dataset.value = ''; // none yet at the position
      v.value.textContent = '—';
      v.time.textContent = '—';
      v.plot = [];
      v.canvas.hidden = true;
    }
  }
  // plotOutput keeps the last 200 values of a numeric topic shown (a step
  // back starts over) and draws them.
  function plotOutput(v, t, x) {
    if (v.plot.length && v.plot[v.plot.length - 1][0] > t) v.plot = [];
    v.plot.push([t, x]);
    if (v.plot.length > 200) v.plot.shift();
    const c = v.canvas, g = c.getContext('2d'), W = c.width, H = c.height;
    c.hidden = false;
    let lo = Infinity, hi = -Infinity;
    for (const p of v.plot) { lo = Math.min(lo, p[1]); hi = Math.max(hi, p[1]); }
    const span = hi - lo || 1;
    g.fillStyle = '#111';
    g.fillRect(0, 0, W, H);
    g.strokeStyle = '#5e5';
    g.beginPath();
    v.plot.forEach((p, i) => {
      const px = i * W / 200, py = H - 2 - (p[1] - lo) / span * (H - 4);
      if (i) g.lineTo(px, py); else g.moveTo(px, py);
    });
    g.stroke();
  }

  function showPose(v, p) {
    const f = (a) => a.map((x) => x.toFixed(4)).join(', ');
    const rows = [['translation (m)', f(p.Translation)], ['rotation (x, y, z, w)', f(p.Rotation)],
      ['velocity (m/s)', f(p.Velocity)], ['acceleration (m/s²)', f(p.Acceleration)],
      ['angular velocity (rad/s)', f(p.AngularVelocity)], ['angular acceleration (rad/s²)', f(p.AngularAcceleration)],
      ['tracker confidence', p.TrackerConfidence], ['mapper confidence', p.MapperConfidence]];
    v.table.replaceChildren(...rows.map(([k, val]) => el('tr', {}, el('td', {}, k), el('td', {}, String(val)))));
  }

  // The ruler: two depth pixels picked on a depth view; the server
  // deprojects them (processing's point cloud) and replies the distance.
  let rulerOn = false, rulerFirst = null;
  function drawRuler(v) {
    const g = v.ctx, [a, b] = v.ruler || [];
    if (v.bmp) g.drawImage(v.bmp, 0, 0);
    if (!a) return;
    g.save();
    g.strokeStyle = '#ff0';
    g.fillStyle = '#ff0';
    g.lineWidth = Math.max(1, v.canvas.width / 400);
    for (const p of v.ruler) { g.beginPath(); g.arc(p[0] + 0.5, p[1] + 0.5, 3 * g.lineWidth, 0, 2 * Math.PI); g.fill(); }
    if (b) { g.beginPath(); g.moveTo(a[0] + 0.5, a[1] + 0.5); g.lineTo(b[0] + 0.5, b[1] + 0.5); g.stroke(); }
    g.restore();
  }
  // rulerPick takes depth pixel p of stream id (picked on its 2D view or
  // on a point of the 3D view) as the ruler's first or second end.
  function rulerPick(id, p) {
    const v = streams.get(id);
    if (!v) return;
    if (!rulerFirst || rulerFirst.id !== id) {
      rulerFirst = { id, p };
      v.ruler = [p];
      drawRuler(v);
      $('ruler').textContent = `from (${p[0]}, ${p[1]}): pick the second pixel`;
      return;
    }
    const a = rulerFirst.p;
    rulerFirst = null;
    v.ruler = [a, p];
    drawRuler(v);
    $('ruler').dataset.a = a.join(',');
    $('ruler').dataset.b = p.join(',');
    send({ cmd: 'ruler', id, x: a[0], y: a[1], x2: p[0], y2: p[1] });
  }
  $('ruler-btn').addEventListener('click', () => {
    rulerOn = !rulerOn;
    rulerFirst = null;
    $('ruler-btn').classList.toggle('active', rulerOn);
    $('ruler').textContent = rulerOn ? 'pick two pixels on the depth view or two points in the 3D view' : '';
    $('ruler').dataset.meters = '';
    if (!rulerOn) {
      for (const v of streams.values()) if (v.ruler) { v.ruler = null; drawRuler(v); }
      cloud.setRuler(null);
    }
  });

  // Snapshot: a PNG of every 2D view as drawn and the server's PLY of the
  // point cloud on view, each offered as a download.
  function offer(name, blob) {
    const a = el('a', { href: URL.createObjectURL(blob), download: name, 'data-bytes': String(blob.size) }, name);
    $('snapshots').append(a);
    a.click();
  }
  $('snapshot').addEventListener('click', () => {
    $('snapshots').replaceChildren();
    for (const v of streams.values()) {
      if (v.s.kind !== 'video' || !v.last) continue;
      const name = `${v.s.name.replace('/', '_')}-${v.last.number}.png`;
      v.canvas.toBlob((b) => offer(name, b), 'image/png');
    }
    if (!$('show3d').parentElement.hidden) {
      fetch('/snapshot.ply').then((r) => {
        if (!r.ok) return r.text().then((t) => { throw new Error(t); });
        const cd = r.headers.get('Content-Disposition') || '';
        const m = /filename="([^"]+)"/.exec(cd);
        return r.blob().then((b) => offer(m ? m[1] : 'cloud.ply', b));
      }).catch((err) => banner(`snapshot: ${err.message}`));
    }
  });

  function onReply(r) {
    if (r.cmd === 'cameras' || r.cmd === 'openCamera') {
      if (r.error) { banner(r.error); return; }
      if (r.cmd === 'openCamera') { // the chosen camera's page, reached as this one is
        location.assign(r.urls.find((u) => new URL(u).hostname === location.hostname) || r.urls[0]);
        return;
      }
      const mine = hello.device['Serial Number'] || '';
      const sel = $('camera');
      sel.replaceChildren(...r.cameras.map((c) => el('option', { value: c.serial }, `${c.serial} (${c.name})`)));
      sel.value = mine;
      return;
    }
    if (r.cmd === 'playRecording' && !r.error) {
      const a = $('recording-link');
      a.href = r.urls[0];
      a.textContent = `open the recording: ${r.urls[0]}`;
      a.hidden = false;
    }
    if (r.cmd === 'ruler') {
      const el2 = $('ruler');
      if (r.error) { el2.textContent = r.error; el2.dataset.meters = ''; return; }
      el2.textContent = `${r.meters.toFixed(4)} m (frame ${r.number})`;
      el2.dataset.meters = String(r.meters);
      cloud.setRuler(r.a, r.b);
      return;
    }
    if (r.cmd === 'hover') {
      const h = $('hover');
      if (r.error) { h.textContent = r.error; h.dataset.meters = ''; return; }
      h.textContent = `(${r.x}, ${r.y}): ${r.meters.toFixed(3)} m` + (r.exact === undefined ? '' : `, exact ${r.exact.toFixed(4)} m${r.exact < 0 ? ' (hidden from the other imager)' : ''}`);
      h.dataset.meters = String(r.meters);
      h.dataset.exact = r.exact === undefined ? '' : String(r.exact);
      return;
    }
    if (r.error) banner(`${r.cmd}: ${r.error}`);
    document.body.dataset.lastReply = `${r.cmd}:${r.tag}:${r.error ? 'error' : 'ok'}`;
  }

  // The 3D view: the point cloud the server computes (processing's point
  // cloud), drawn with WebGL as points. Positions arrive as int16 (meters =
  // value × scale) in the depth camera's coordinates (x right, y down, z
  // forward), colors as RGB8. Drag orbits, shift+drag or right drag pans,
  // the wheel zooms.
  const cloud = (() => {
    const c = $('cloud');
    const st = { gl: null, prog: null, pos: null, col: null, count: 0, scale: 1, dirty: false, next: null, posCap: 0, colCap: 0, uploads: 0, frames: 0, received: 0, pending: null, fpsT: 0, fpsN: 0,
      yaw: 0, pitch: 0, dist: 1, target: [0, 0, 1], fitted: false, ruler: null };
    function init() {
      if (st.gl) return true;
      const gl = c.getContext('webgl', { preserveDrawingBuffer: true, antialias: false });
      if (!gl) { banner('3D view: this browser has no WebGL'); return false; }
      const sh = (type, src) => {
        const o = gl.createShader(type);
        gl.shaderSource(o, src);
        gl.compileShader(o);
        if (!gl.getShaderParameter(o, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(o));
        return o;
      };
      const p = gl.createProgram();
      gl.attachShader(p, sh(gl.VERTEX_SHADER, 'attribute vec3 p; attribute vec3 c; uniform mat4 m; uniform float s; uniform float ps; varying vec3 v;' +
        'void main() { gl_Position = m * vec4(p * s, 1.0); gl_PointSize = ps; v = c; }'));
      gl.attachShader(p, sh(gl.FRAGMENT_SHADER, 'precision mediump float; varying vec3 v; void main() { gl_FragColor = vec4(v, 1.0); }'));
      gl.linkProgram(p);
      if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
      st.gl = gl; st.prog = p;
      st.pos = gl.createBuffer(); st.col = gl.createBuffer(); st.line = gl.createBuffer(); st.lineCol = gl.createBuffer();
      st.loc = { p: gl.getAttribLocation(p, 'p'), c: gl.getAttribLocation(p, 'c'), m: gl.getUniformLocation(p, 'm'),
        s: gl.getUniformLocation(p, 's'), ps: gl.getUniformLocation(p, 'ps') };
      gl.enable(gl.DEPTH_TEST);
      return true;
    }
    // Column-major 4x4 matrices.
    const mul = (a, b) => {
      const o = new Float32Array(16);
      for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) {
        let x = 0;
        for (let k = 0; k < 4; k++) x += a[k * 4 + j] * b[i * 4 + k];
        o[i * 4 + j] = x;
      }
      return o;
    };
    function matrix() {
      const f = 1 / Math.tan(Math.PI / 6), asp = c.width / c.height, near = 0.01, far = 100;
      const proj = new Float32Array([f / asp, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / (near - far), -1, 0, 0, 2 * far * near / (near - far), 0]);
      // The camera's coordinates (y down, z forward) to GL's (y up, z back).
      const t = [st.target[0], -st.target[1], -st.target[2]];
      const cp = Math.cos(st.pitch);
      const eye = [t[0] + st.dist * Math.sin(st.yaw) * cp, t[1] + st.dist * Math.sin(st.pitch), t[2] + st.dist * Math.cos(st.yaw) * cp];
      const norm = (v) => { const l = Math.hypot(...v) || 1; return v.map((x) => x / l); };
      const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
      const zc = norm([eye[0] - t[0], eye[1] - t[1], eye[2] - t[2]]);
      const xc = norm(cross([0, 1, 0], zc)), yc = cross(zc, xc);
      const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
      const view = new Float32Array([xc[0], yc[0], zc[0], 0, xc[1], yc[1], zc[1], 0, xc[2], yc[2], zc[2], 0, -dot(xc, eye), -dot(yc, eye), -dot(zc, eye), 1]);
      const flip = new Float32Array([1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1]);
      st.axes = { xc, yc };
      return mul(proj, mul(view, flip));
    }
    function draw() {
      st.dirty = false;
      if (st.next) take();
      if (st.pending) shown(st.pending.h, st.pending.bytes);
      st.pending = null;
      const gl = st.gl;
      gl.viewport(0, 0, c.width, c.height);
      gl.clearColor(0.07, 0.07, 0.08, 1);
      gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
      gl.useProgram(st.prog);
      st.m = matrix();
      gl.uniformMatrix4fv(st.loc.m, false, st.m);
      const attrib = (buf, loc, n, type, normalized) => {
        gl.bindBuffer(gl.ARRAY_BUFFER, buf);
        gl.enableVertexAttribArray(loc);
        gl.vertexAttribPointer(loc, n, type, normalized, 0, 0);
      };
      if (st.count) {
        gl.uniform1f(st.loc.s, st.scale);
        gl.uniform1f(st.loc.ps, st.pointSize);
        attrib(st.pos, st.loc.p, 3, gl.SHORT, false);
        attrib(st.col, st.loc.c, 3, gl.UNSIGNED_BYTE, true);
        gl.drawArrays(gl.POINTS, 0, st.count);
      }
      if (st.ruler) { // two points in meters and the line between them
        gl.uniform1f(st.loc.s, 1);
        gl.uniform1f(st.loc.ps, 8);
        attrib(st.line, st.loc.p, 3, gl.FLOAT, false);
        attrib(st.lineCol, st.loc.c, 3, gl.UNSIGNED_BYTE, true);
        gl.drawArrays(gl.LINES, 0, 2);
        gl.drawArrays(gl.POINTS, 0, 2);
      }
      c.dataset.yaw = st.yaw.toFixed(4);
      c.dataset.pitch = st.pitch.toFixed(4);
      c.dataset.dist = st.dist.toFixed(4);
    }
    // shown counts a cloud drawn and describes it.
    function shown(h, bytes) {
      st.frames++;
      const now = performance.now();
      if (!st.fpsT) st.fpsT = now;
      st.fpsN++;
      if (now - st.fpsT >= 1000) { c.dataset.fps = (st.fpsN * 1000 / (now - st.fpsT)).toFixed(1); st.fpsT = now; st.fpsN = 0; }
      c.dataset.number = String(h.number);
      c.dataset.points = String(h.count);
      c.dataset.frames = String(st.frames);
      c.dataset.step = String(h.step);
      c.dataset.bytes = String(bytes);
      $('cloud-texture').textContent = `(frame ${h.number}, ${h.texture === 'depth' ? 'colored by depth' : 'textured by ' + h.texture})`;
      $('cloud-stats').textContent = `${h.count} points · ${h.width}x${h.height} every ${h.step} · ${(bytes / 1024).toFixed(0)} KB` +
        (c.dataset.fps ? ` · ${c.dataset.fps} fps` : '');
    }
    const redraw = () => {
      if (!st.gl || st.dirty) return;
      st.dirty = true;
      requestAnimationFrame(draw);
    };
    function fit(pos) { // look at the middle of the cloud from the camera's place
      let z = 0, n = 0;
      for (let i = 2; i < pos.length; i += 3 * Math.max(1, Math.floor(pos.length / 3000))) { z += pos[i]; n++; }
      const mz = n ? z / n * st.scale : 1;
      st.target = [0, 0, mz]; st.dist = mz; st.yaw = 0; st.pitch = 0;
      st.fitted = true;
    }
    // upload gives the GL buffer the data, growing it only when it is too
    // small (no reallocation per cloud).
    function upload(buf, data, cap) {
      const gl = st.gl;
      gl.bindBuffer(gl.ARRAY_BUFFER, buf);
      if (st[cap] < data.byteLength) {
        gl.bufferData(gl.ARRAY_BUFFER, data.byteLength, gl.DYNAMIC_DRAW);
        st[cap] = data.byteLength;
      }
      gl.bufferSubData(gl.ARRAY_BUFFER, 0, data);
    }
    // put keeps the newest cloud; the next animation frame uploads and
    // draws it (the clouds that arrive between two frames are never
    // uploaded).
    function put(h, buf, off) {
      if (!$('show3d').checked || !init()) return;
      st.next = { h, buf, off };
      c.dataset.received = String(++st.received);
      redraw();
    }
    function take() {
      const { h, buf, off } = st.next;
      st.next = null;
      const pos = new Int16Array(buf, off, 3 * h.count);
      st.drawn = { h, buf, off, pos }; // for picking
      st.scale = h.scale;
      st.count = h.count;
      st.pointSize = Math.min(4, 1.5 + h.step / 2); // a decimated cloud's points cover its pixels
      upload(st.pos, pos, 'posCap');
      upload(st.col, new Uint8Array(buf, off + h.colorOffset, 3 * h.count), 'colCap');
      if (!st.fitted && h.count) fit(pos);
      st.pending = { h, bytes: buf.byteLength }; // described once drawn
      c.dataset.uploads = String(++st.uploads);
    }
    function setRuler(a, b) {
      if (!st.gl && !a) return;
      if (!init()) return;
      const gl = st.gl;
      st.ruler = a ? [a, b] : null;
      if (!a) { redraw(); return; }
      if (a) {
        gl.bindBuffer(gl.ARRAY_BUFFER, st.line);
        gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([...a, ...b]), gl.DYNAMIC_DRAW);
        gl.bindBuffer(gl.ARRAY_BUFFER, st.lineCol);
        gl.bufferData(gl.ARRAY_BUFFER, new Uint8Array([255, 255, 0, 255, 255, 0]), gl.DYNAMIC_DRAW);
      }
      redraw();
    }
    // pick returns the depth pixel (of the frame on view) of the point
    // drawn nearest to the pointer at (clientX, clientY), the nearest to
    // the eye among those under it, or null when none is within a few
    // pixels. The cloud's mask gives the pixel of each point.
    function pick(clientX, clientY) {
      const d = st.drawn;
      if (!d || !st.m) return null;
      const r = c.getBoundingClientRect(), m = st.m, s = st.scale, pos = d.pos;
      const qx = (clientX - r.left) * c.width / r.width, qy = (clientY - r.top) * c.height / r.height;
      const reach = Math.max(3, st.pointSize) ** 2;
      let best = -1, bestD = Infinity, bestZ = Infinity;
      for (let k = 0; k < d.h.count; k++) {
        const x = pos[3 * k] * s, y = pos[3 * k + 1] * s, z = pos[3 * k + 2] * s;
        const w = m[3] * x + m[7] * y + m[11] * z + m[15];
        if (!(w > 0)) continue;
        const sx = ((m[0] * x + m[4] * y + m[8] * z + m[12]) / w * 0.5 + 0.5) * c.width;
        const sy = (0.5 - (m[1] * x + m[5] * y + m[9] * z + m[13]) / w * 0.5) * c.height;
        const dd = (sx - qx) ** 2 + (sy - qy) ** 2;
        if (dd > reach) continue;
        const zz = (m[2] * x + m[6] * y + m[10] * z + m[14]) / w;
        if (zz < bestZ - 1e-4 || Math.abs(zz - bestZ) <= 1e-4 && dd < bestD) { best = k; bestD = dd; bestZ = zz; }
      }
      if (best < 0) return null;
      const mask = new Uint8Array(d.buf, d.off + d.h.maskOffset, (d.h.width * d.h.height + 7) >> 3);
      let n = best;
      for (let i = 0; i < mask.length; i++) {
        let b = mask[i];
        for (; b; b &= b - 1) {
          if (n-- === 0) {
            const px = 8 * i + 31 - Math.clz32(b & -b), step = d.h.step, half = step >> 1;
            return [(px % d.h.width) * step + half, Math.floor(px / d.h.width) * step + half, d.h.id];
          }
        }
      }
      return null;
    }
    function reset() { st.fitted = false; st.yaw = 0; st.pitch = 0; redraw(); }
    let drag = null;
    c.addEventListener('contextmenu', (e) => e.preventDefault());
    c.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY, pan: e.shiftKey || e.button === 2 };
      c.setPointerCapture(e.pointerId);
    });
    c.addEventListener('pointerup', (e) => {
      // A click (no drag) with the ruler on picks a point.
      const click = drag && Math.hypot(e.clientX - drag.x0, e.clientY - drag.y0) < 4;
      drag = null;
      if (!click || !rulerOn) return;
      const p = pick(e.clientX, e.clientY);
      if (!p) { $('ruler').textContent = 'no point there: pick a point of the cloud'; return; }
      rulerPick(p[2], [p[0], p[1]]);
    });
    c.addEventListener('pointermove', (e) => {
      if (!drag || !st.axes) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      drag.x = e.clientX; drag.y = e.clientY;
      if (drag.pan) {
        const k = st.dist * 0.002, { xc, yc } = st.axes;
        // GL axes back to the camera's (y and z flipped).
        st.target[0] -= k * (dx * xc[0] - dy * yc[0]);
        st.target[1] += k * (dx * xc[1] - dy * yc[1]);
        st.target[2] += k * (dx * xc[2] - dy * yc[2]);
      } else {
        st.yaw -= dx * 0.01;
        st.pitch = Math.max(-1.5, Math.min(1.5, st.pitch + dy * 0.01));
      }
      redraw();
    });
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      st.dist = Math.max(0.02, Math.min(50, st.dist * Math.exp(e.deltaY * 0.001)));
      redraw();
    }, { passive: false });
    c.addEventListener('dblclick', reset);
    $('reset-view').addEventListener('click', reset);
    return { put, setRuler, reset };
  })();

  let recording = false;
  function showRecording(m) {
    $('recorder').hidden = !m.canRecord;
    const r = m.recording;
    recording = !!(r && r.active);
    $('record').textContent = recording ? 'Stop recording' : 'Record';
    $('record-name').disabled = recording;
    const st = $('record-status');
    st.dataset.active = recording ? 'true' : '';
    if (!r) { st.textContent = ''; return; }
    st.dataset.bytes = String(r.bytes);
    st.dataset.file = r.file;
    const mb = (r.bytes / 1e6).toFixed(1);
    st.textContent = (recording ? `recording ${r.file}: ` : `recorded ${r.file}: `) + `${mb} MB, ${r.seconds.toFixed(1)} s` +
      (r.dropped ? `, ${r.dropped} frames dropped` : '') + (r.error ? ` — ${r.error}` : '') +
      '';
    $('play-recording').hidden = recording || !!r.error;
  }
  $('play-recording').addEventListener('click', () => send({ cmd: 'playRecording' }));
  $('record').addEventListener('click', () => {
    if (recording) send({ cmd: 'record', on: false });
    else send({ cmd: 'record', on: true, name: $('record-name').value.trim() || `recording-${new Date().toISOString().replace(/[:.]/g, '-')}` });
  });

  const cloudCmd = () => send({ cmd: 'cloud', on: $('show3d').checked, full: $('cloud-full').checked });
  $('show3d').addEventListener('change', (e) => { $('cloud-card').hidden = !e.target.checked; cloudCmd(); });
  $('cloud-full').addEventListener('change', cloudCmd);

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
