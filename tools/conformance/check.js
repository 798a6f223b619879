#!/usr/bin/env node
// rsbag's checks of ROS 1 bags and MCAP files with the readers Foxglove and
// the MCAP project publish on npm (pinned in package.json / package-lock.json).
//
//   node check.js bag  [--json] [-q] [--lenient] [--max-errors N] BAG ...
//   node check.js mcap [--json] [-q] [--max-errors N] FILE.mcap ...
//
// bag: @foxglove/rosbag opens the bag from its index; every chunk is read and
// decompressed; every connection's definition is parsed and its md5sum
// recomputed (@foxglove/rosmsg); every message of Foxglove's message
// iterator is deserialized (@foxglove/rosmsg-serialization) and serialized
// again to the same bytes (nothing after the last field, nothing missing, no
// bool other than 0 or 1); the iterator returns as many messages as the index
// counts. --lenient makes the byte-for-byte findings warnings.
//
// mcap: a streaming pass (@mcap/core McapStreamReader, CRCs checked) reads
// every record; every message's channel and schema are defined before it;
// ros1 messages deserialize with their ros1msg schema and re-serialize to the
// same bytes; cdr messages deserialize with their ros2msg schema
// (@foxglove/rosmsg2-serialization) consuming all but at most 3 padding
// bytes; json messages are UTF-8 JSON. An indexed pass (McapIndexedReader)
// returns the same message count per channel in non-decreasing log time, and
// the Statistics record agrees.
//
// Exit status: 0 all pass, 1 one fails, 2 usage or packages not installed.
"use strict";

const fs = require("fs");
const path = require("path");

let D;
try {
  D = {
    Bag: require("@foxglove/rosbag").Bag,
    FileReader: require("@foxglove/rosbag/node").FileReader,
    rosmsg: require("@foxglove/rosmsg"),
    ros1: require("@foxglove/rosmsg-serialization"),
    ros2: require("@foxglove/rosmsg2-serialization"),
    mcap: require("@mcap/core"),
    lz4: require("@foxglove/wasm-lz4"),
    zstd: require("@foxglove/wasm-zstd"),
    Bzip2: require("@foxglove/wasm-bz2"),
  };
} catch (err) {
  process.stderr.write(`${path.basename(process.argv[1])}: ${err.message.split("\n")[0]} (run tools/conformance/setup)\n`);
  process.exit(2);
}

class Report {
  constructor(maxErrors, lenient) {
    this.maxErrors = maxErrors;
    this.lenient = lenient;
    this.errors = [];
    this.warnings = [];
    this.dropped = 0;
    this.soft = new Map(); // topic -> [count, first example]
  }
  error(msg) {
    if (this.errors.length < this.maxErrors) this.errors.push(msg);
    else this.dropped++;
  }
  // A finding --lenient makes a warning (one line per topic).
  strict(topic, msg) {
    if (!this.lenient) return this.error(msg);
    const s = this.soft.get(topic) ?? [0, msg];
    s[0]++;
    this.soft.set(topic, s);
  }
  finish() {
    for (const [, [n, first]] of this.soft) this.warnings.push(`${n} message(s) like: ${first}`);
    if (this.dropped) this.errors.push(`... and ${this.dropped} more problem(s)`);
  }
}

const stamp = (t) => `${t.sec}.${String(t.nsec).padStart(9, "0")}`;
const cmpTime = (a, b) => a.sec - b.sec || a.nsec - b.nsec;

// difference says how a message's bytes differ from their re-serialization.
function difference(data, again) {
  if (again.length < data.length) {
    return `${data.length - again.length} byte(s) after the last field (the definition takes ${again.length} of ${data.length})`;
  }
  if (again.length > data.length) return `the definition needs ${again.length} byte(s), the message has ${data.length}`;
  let i = 0;
  while (data[i] === again[i]) i++;
  return `byte ${i} is ${data[i]} but re-serializes as ${again[i]} (a bool other than 0 or 1, or a string that is not UTF-8)`;
}

function sameBytes(a, b) {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;
}

// ros1Codec parses a ROS 1 definition into a reader and a writer.
function ros1Codec(def) {
  const parsed = D.rosmsg.parse(def);
  return { parsed, reader: new D.ros1.MessageReader(parsed), writer: new D.ros1.MessageWriter(parsed) };
}

// checkRos1 deserializes one ROS 1 message and serializes it again.
function checkRos1(codec, data, where, topic, rep) {
  let again;
  try {
    again = codec.writer.writeMessage(codec.reader.readMessage(data));
  } catch (err) {
    rep.error(`${where}: does not deserialize: ${err.message}`);
    return;
  }
  if (!sameBytes(data, again)) rep.strict(topic, `${where}: ${difference(data, again)}`);
}

// genmsgUsesAliases: @foxglove/rosmsg 4 hashes the builtin aliases byte and
// char as int8/uint8, unlike genmsg; such a mismatch is only a warning.
const usesAliases = (def) => /^\s*(byte|char)(\[\d*\])?\s/m.test(def);

// walkRecords says why the records of a decompressed chunk do not fill it
// exactly (each: header length, header, data length, data), or "".
function walkRecords(data) {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  while (at < data.length) {
    for (const part of ["header", "data"]) {
      if (at + 4 > data.length) return `the record at ${at} is cut short`;
      const n = view.getUint32(at, true);
      if (at + 4 + n > data.length) return `the ${part} of the record at ${at} (${n} bytes) runs past the chunk's ${data.length} bytes`;
      at += 4 + n;
    }
  }
  return "";
}

// lz4 decompresses with @foxglove/wasm-lz4. Its 1.0.2 keeps one
// decompression context for the process: after a corrupt frame every later
// call fails too, so a failure loads a fresh instance before the next file.
let lz4Failed = false;
function lz4(buf, size) {
  try {
    return D.lz4(buf, size);
  } catch (err) {
    lz4Failed = true;
    throw err;
  }
}
async function lz4Ready() {
  if (lz4Failed) {
    for (const k of Object.keys(require.cache)) if (k.includes(`${path.sep}wasm-lz4${path.sep}`)) delete require.cache[k];
    D.lz4 = require("@foxglove/wasm-lz4");
    lz4Failed = false;
  }
  await D.lz4.isLoaded;
}

async function checkBag(file, opts) {
  const rep = new Report(opts.maxErrors, opts.lenient);
  const out = { path: file, ok: false, size: 0, format_version: "2.0", compression: [], chunks: 0, connections: 0, messages: 0, start_time: "", end_time: "", topics: [] };
  D.bz2 ??= await D.Bzip2.init(); // one instance: each adds process listeners
  const bz2 = D.bz2;
  await lz4Ready();
  const decompress = {
    lz4,
    bz2: (buf, size) => bz2.decompress(buf, size, { small: false }),
  };
  const reader = new D.FileReader(file);
  try {
    out.size = fs.statSync(file).size;
    const bag = new D.Bag(reader, { parse: false, decompress });
    await bag.open();
    if (bag.header.connectionCount !== bag.connections.size) rep.error(`the file header counts ${bag.header.connectionCount} connections, the index holds ${bag.connections.size}`);
    if (bag.header.chunkCount !== bag.chunkInfos.length) rep.error(`the file header counts ${bag.header.chunkCount} chunks, the index holds ${bag.chunkInfos.length}`);
    out.chunks = bag.chunkInfos.length;
    out.connections = bag.connections.size;
    const topics = new Map();
    const codecs = new Map();
    for (const [id, conn] of bag.connections) {
      let t = topics.get(conn.topic);
      if (!t) {
        t = { topic: conn.topic, type: conn.type, md5sum: conn.md5sum, connections: 0, count: 0, first: undefined, last: undefined, indexed: 0 };
        topics.set(conn.topic, t);
      }
      t.connections++;
      if (!/^[0-9a-f]{32}$/.test(conn.md5sum ?? "")) rep.error(`connection ${id} (${conn.topic}): md5sum ${JSON.stringify(conn.md5sum)} is not 32 lowercase hex digits`);
      try {
        const codec = ros1Codec(conn.messageDefinition);
        const md5 = D.rosmsg.md5(codec.parsed);
        if (md5 !== conn.md5sum) {
          const msg = `connection ${id} (${conn.topic}): md5sum ${conn.md5sum}, but the definition of ${conn.type} gives ${md5}`;
          if (usesAliases(conn.messageDefinition)) rep.warnings.push(msg + " (byte/char aliases)");
          else rep.error(msg);
        }
        codecs.set(id, codec);
      } catch (err) {
        rep.error(`connection ${id} (${conn.topic}): definition of ${conn.type} does not parse: ${err.message}`);
      }
    }
    const comp = new Set();
    let counted = 0;
    for (const ci of bag.chunkInfos) {
      counted += ci.connections.reduce((n, c) => n + c.count, 0);
      for (const c of ci.connections) {
        const conn = bag.connections.get(c.conn);
        if (!conn) rep.error(`chunk at ${ci.chunkPosition}: counts messages of connection ${c.conn}, which the index does not hold`);
        else topics.get(conn.topic).indexed += c.count;
      }
      try {
        const { chunk } = await bag.reader.readChunk(ci, decompress);
        comp.add(chunk.compression);
        if (chunk.data.length !== chunk.size) rep.error(`chunk at ${ci.chunkPosition}: decompresses to ${chunk.data.length} bytes, its header says ${chunk.size}`);
        else {
          const bad = walkRecords(chunk.data);
          if (bad) rep.error(`chunk at ${ci.chunkPosition}: ${bad}`);
        }
      } catch (err) {
        rep.error(`chunk at ${ci.chunkPosition}: cannot be read: ${err.message}`);
      }
    }
    out.compression = [...comp].sort();
    let start, end;
    for await (const m of bag.messageIterator()) {
      out.messages++;
      const conn = bag.connections.get(m.connectionId);
      const t = topics.get(conn.topic);
      t.count++;
      if (!t.first || cmpTime(m.timestamp, t.first) < 0) t.first = m.timestamp;
      if (!t.last || cmpTime(m.timestamp, t.last) > 0) t.last = m.timestamp;
      if (!start || cmpTime(m.timestamp, start) < 0) start = m.timestamp;
      if (!end || cmpTime(m.timestamp, end) > 0) end = m.timestamp;
      const codec = codecs.get(m.connectionId);
      if (codec) checkRos1(codec, m.data, `${conn.topic} message ${t.count} at ${stamp(m.timestamp)}`, conn.topic, rep);
    }
    if (out.messages !== counted) rep.error(`the message iterator returns ${out.messages} messages, the chunk infos count ${counted}`);
    if (start) [out.start_time, out.end_time] = [stamp(start), stamp(end)];
    for (const t of [...topics.values()].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0))) {
      if (t.indexed !== t.count) rep.error(`topic ${t.topic}: the index counts ${t.indexed} messages, reading gives ${t.count}`);
      out.topics.push({ topic: t.topic, type: t.type, md5sum: t.md5sum, connections: t.connections, count: t.count, first_time: t.first ? stamp(t.first) : "", last_time: t.last ? stamp(t.last) : "" });
    }
  } catch (err) {
    rep.error(`@foxglove/rosbag cannot read it: ${err.message}`);
  } finally {
    await reader.close().catch(() => {});
  }
  rep.finish();
  return Object.assign(out, { ok: rep.errors.length === 0, errors: rep.errors, warnings: rep.warnings });
}

async function checkMcap(file, opts) {
  const rep = new Report(opts.maxErrors, false);
  const out = { path: file, ok: false, profile: "", library: "", messages: 0, chunks: 0, start_ns: "", end_ns: "", schemas: [], channels: [] };
  await lz4Ready();
  await D.zstd.isLoaded;
  const decompressHandlers = {
    lz4: (buf, size) => lz4(buf, Number(size)),
    zstd: (buf, size) => D.zstd.decompress(buf, Number(size)),
  };
  const schemas = new Map();
  const channels = new Map();
  const codecs = new Map(); // channel id -> (data, where) => void
  const counts = new Map();
  const codecOf = (ch) => {
    const schema = schemas.get(ch.schemaId);
    const topic = ch.topic;
    if (ch.messageEncoding === "json") {
      return (data, where) => {
        try {
          JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(data));
        } catch (err) {
          rep.error(`${where}: not UTF-8 JSON: ${err.message}`);
        }
      };
    }
    if (ch.messageEncoding === "ros1") {
      if (!schema || schema.encoding !== "ros1msg") throw new Error(`ros1 messages need a ros1msg schema, not ${schema ? schema.encoding : "none"}`);
      const codec = ros1Codec(new TextDecoder().decode(schema.data));
      return (data, where) => checkRos1(codec, data, where, topic, rep);
    }
    if (ch.messageEncoding === "cdr") {
      if (!schema || schema.encoding !== "ros2msg") throw new Error(`cdr messages need a ros2msg schema, not ${schema ? schema.encoding : "none"}`);
      const reader = new D.ros2.MessageReader(D.rosmsg.parse(new TextDecoder().decode(schema.data), { ros2: true }));
      return (data, where) => {
        try {
          reader.readMessage(data);
        } catch (err) {
          return rep.error(`${where}: does not deserialize: ${err.message}`);
        }
        const left = data.length - reader.lastReadByteLength();
        if (left > 3) rep.error(`${where}: ${left} byte(s) after the last field`);
      };
    }
    return () => {};
  };
  try {
    const stream = new D.mcap.McapStreamReader({ decompressHandlers, validateCrcs: true });
    stream.append(fs.readFileSync(file));
    let lastLog = -1n;
    let statistics;
    for (let rec; (rec = stream.nextRecord()); ) {
      switch (rec.type) {
        case "Header":
          [out.profile, out.library] = [rec.profile, rec.library];
          break;
        case "Schema": {
          const prev = schemas.get(rec.id);
          if (prev && (prev.name !== rec.name || !sameBytes(prev.data, rec.data))) rep.error(`schema ${rec.id} redefined differently`);
          schemas.set(rec.id, rec);
          break;
        }
        case "Channel": {
          const prev = channels.get(rec.id);
          if (prev && (prev.topic !== rec.topic || prev.schemaId !== rec.schemaId)) rep.error(`channel ${rec.id} redefined differently`);
          if (rec.schemaId !== 0 && !schemas.has(rec.schemaId)) rep.error(`channel ${rec.id} (${rec.topic}) names schema ${rec.schemaId}, not defined before it`);
          channels.set(rec.id, rec);
          if (!codecs.has(rec.id)) {
            try {
              codecs.set(rec.id, codecOf(rec));
            } catch (err) {
              rep.error(`channel ${rec.id} (${rec.topic}): ${err.message}`);
              codecs.set(rec.id, () => {});
            }
          }
          break;
        }
        case "Message": {
          out.messages++;
          const ch = channels.get(rec.channelId);
          if (!ch) {
            rep.error(`message ${out.messages}: channel ${rec.channelId} not defined before it`);
            break;
          }
          const n = (counts.get(rec.channelId) ?? 0) + 1;
          counts.set(rec.channelId, n);
          codecs.get(rec.channelId)(rec.data, `${ch.topic} message ${n} at ${rec.logTime}`);
          if (out.start_ns === "" || rec.logTime < BigInt(out.start_ns)) out.start_ns = String(rec.logTime);
          if (out.end_ns === "" || rec.logTime > BigInt(out.end_ns)) out.end_ns = String(rec.logTime);
          lastLog = rec.logTime;
          break;
        }
        case "Chunk":
          out.chunks++;
          break;
        case "Statistics":
          statistics = rec;
          break;
      }
    }
    if (!stream.done()) rep.error(`the streaming reader stops ${stream.bytesRemaining()} bytes before the end of the file`);
    void lastLog;
    const fd = fs.openSync(file, "r");
    try {
      const readable = {
        size: async () => BigInt(fs.fstatSync(fd).size),
        read: async (offset, size) => {
          const buf = Buffer.alloc(Number(size));
          fs.readSync(fd, buf, 0, buf.length, Number(offset));
          return buf;
        },
      };
      const indexed = await D.mcap.McapIndexedReader.Initialize({ readable, decompressHandlers });
      out.chunks = indexed.chunkIndexes.length || out.chunks;
      const icounts = new Map();
      let prev = -1n;
      let n = 0;
      for await (const m of indexed.readMessages({ validateCrcs: true })) {
        n++;
        icounts.set(m.channelId, (icounts.get(m.channelId) ?? 0) + 1);
        if (m.logTime < prev) rep.error(`the indexed reader returns message ${n} at ${m.logTime} after one at ${prev}`);
        prev = m.logTime;
      }
      if (n !== out.messages) rep.error(`the indexed reader returns ${n} messages, the streaming reader ${out.messages}`);
      for (const [id, c] of counts) if (icounts.get(id) !== c) rep.error(`channel ${id}: the indexed reader returns ${icounts.get(id) ?? 0} messages, the streaming reader ${c}`);
      const st = indexed.statistics ?? statistics;
      if (!st) rep.error("no Statistics record");
      else {
        if (Number(st.messageCount) !== out.messages) rep.error(`Statistics counts ${st.messageCount} messages, the file holds ${out.messages}`);
        if (st.channelCount !== channels.size) rep.error(`Statistics counts ${st.channelCount} channels, the file holds ${channels.size}`);
        if (st.schemaCount !== schemas.size) rep.error(`Statistics counts ${st.schemaCount} schemas, the file holds ${schemas.size}`);
        for (const [id, c] of counts) if (Number(st.channelMessageCounts.get(id) ?? 0n) !== c) rep.error(`Statistics counts ${st.channelMessageCounts.get(id) ?? 0} messages of channel ${id}, the file holds ${c}`);
        if (out.messages > 0 && (String(st.messageStartTime) !== out.start_ns || String(st.messageEndTime) !== out.end_ns)) {
          rep.error(`Statistics says log times ${st.messageStartTime} to ${st.messageEndTime}, the messages ${out.start_ns} to ${out.end_ns}`);
        }
      }
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    rep.error(`@mcap/core cannot read it: ${err.message}`);
  }
  out.schemas = [...schemas.values()].map((s) => ({ id: s.id, name: s.name, encoding: s.encoding }));
  out.channels = [...channels.values()].map((c) => ({ id: c.id, topic: c.topic, message_encoding: c.messageEncoding, schema: schemas.get(c.schemaId)?.name ?? "", schema_encoding: schemas.get(c.schemaId)?.encoding ?? "", count: counts.get(c.id) ?? 0 }));
  rep.finish();
  return Object.assign(out, { ok: rep.errors.length === 0, errors: rep.errors, warnings: rep.warnings });
}

function usage(name, msg) {
  process.stderr.write(`${name}: ${msg}\nusage: ${name} [--json] [-q] [--lenient] [--max-errors N] FILE ...\n`);
  process.exit(2);
}

async function main() {
  const [mode, ...args] = process.argv.slice(2);
  const name = mode === "bag" ? "bagcheck-js" : "mcapcheck-js";
  if (mode !== "bag" && mode !== "mcap") usage("check.js", "the first argument is bag or mcap");
  const opts = { json: false, quiet: false, lenient: false, maxErrors: 30 };
  const files = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--json") opts.json = true;
    else if (a === "-q") opts.quiet = true;
    else if (a === "--lenient" && mode === "bag") opts.lenient = true;
    else if (a === "--max-errors") {
      opts.maxErrors = Number(args[++i]);
      if (!Number.isInteger(opts.maxErrors) || opts.maxErrors < 1) usage(name, "--max-errors wants a positive integer");
    } else if (a.startsWith("-")) usage(name, `unknown flag ${a}`);
    else files.push(a);
  }
  if (files.length === 0) usage(name, "no file given");
  const results = [];
  for (const f of files) results.push(mode === "bag" ? await checkBag(f, opts) : await checkMcap(f, opts));
  const ok = results.every((r) => r.ok);
  if (opts.json) {
    const key = mode === "bag" ? "bags" : "files";
    process.stdout.write(JSON.stringify({ checker: name, ok, lenient: opts.lenient, [key]: results }) + "\n");
  } else {
    for (const r of results) {
      if (mode === "bag") {
        process.stdout.write(`${r.path}: ${r.size} bytes, ${r.compression.join(",") || "-"}, ${r.chunks} chunks, ${r.connections} connections, ${r.messages} messages, ${r.start_time} to ${r.end_time}\n`);
        if (!opts.quiet) for (const t of r.topics) process.stdout.write(`  ${t.topic.padEnd(50)} ${t.type.padEnd(32)} ${String(t.count).padStart(6)}\n`);
      } else {
        process.stdout.write(`${r.path}: profile ${JSON.stringify(r.profile)}, ${r.chunks} chunks, ${r.channels.length} channels, ${r.messages} messages, log time ${r.start_ns} to ${r.end_ns}\n`);
        if (!opts.quiet) for (const c of r.channels) process.stdout.write(`  ${c.topic.padEnd(50)} ${c.message_encoding.padEnd(5)} ${c.schema.padEnd(32)} ${String(c.count).padStart(6)}\n`);
      }
      for (const w of r.warnings) process.stdout.write(`  warning: ${w}\n`);
      process.stdout.write(r.ok ? "PASS\n" : "FAIL\n");
      for (const e of r.errors) process.stdout.write(`  ${e}\n`);
    }
    const failed = results.filter((r) => !r.ok).length;
    process.stdout.write(failed ? `${name}: ${failed} of ${results.length} file(s) FAILED\n` : `${name}: all ${results.length} file(s) conform\n`);
  }
  process.exitCode = ok ? 0 : 1;
}

main().catch((err) => {
  process.stderr.write(`check.js: ${err.stack}\n`);
  process.exit(2);
});
