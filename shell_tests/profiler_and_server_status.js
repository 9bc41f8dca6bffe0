// The profiler and the monitoring sections through mongosh's own helpers, as
// a user would run them (issue #16): db.setProfilingLevel /
// db.getProfilingStatus, system.profile's entries, db.serverStatus()'s
// wiredTiger.cache, metrics.cursor and connections, and cursorTimeoutMillis
// changed with db.adminCommand({setParameter}). Leaves every setting as it
// found it (the other scripts share this server).
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_profiler");
assert.commandWorked(tdb.dropDatabase());

// --- Profiling levels -------------------------------------------------------
{
  let status = tdb.getProfilingStatus();
  assert.eq(status.was, 0);
  assert.eq(status.slowms, 100);
  assert.eq(status.sampleRate, 1);
  const res = tdb.setProfilingLevel(2);
  assert.eq(res.was, 0, "setProfilingLevel answers the level before");
  assert.eq(tdb.getProfilingStatus().was, 2);
  assert.eq(db.getSiblingDB("shell_profiler_other").getProfilingStatus().was, 0, "levels are per database");

  assert.eq(tdb.items.createIndex({ sku: 1 }), "sku_1");
  assert.commandWorked(tdb.items.insertMany([{ sku: "a", qty: 1 }, { sku: "b", qty: 2 }, { sku: "b", qty: 3 }]));
  assert.eq(tdb.items.find({ sku: "b" }).toArray().length, 2);
  tdb.setProfilingLevel(0);

  const q = tdb.system.profile.find({ op: "query", ns: "shell_profiler.items" }).toArray();
  assert.eq(q.length, 1);
  assert.eq(q[0].planSummary, "IXSCAN { sku: 1 }");
  assert.eq(q[0].keysExamined, 2);
  assert.eq(q[0].docsExamined, 2);
  assert.eq(q[0].nreturned, 2);
  assert.eq(q[0].command.filter.sku, "b");
  assert(q[0].ts instanceof Date, "ts is a date");
  assert.eq(q[0].client, "127.0.0.1");
  assert.gte(q[0].millis, 0);
  assert.gte(q[0].responseLength, 1);
  const ins = tdb.system.profile.find({ op: "insert" }).toArray();
  assert.eq(ins.length, 1);
  assert.eq(ins[0].ninserted, 3);

  // slowms, sampleRate and a filter through the helper's options.
  status = tdb.setProfilingLevel(1, { slowms: 0, sampleRate: 1 });
  assert.eq(tdb.getProfilingStatus().slowms, 0);
  assert.eq(tdb.items.countDocuments({}), 3);
  tdb.setProfilingLevel(1, { filter: { op: "remove" } });
  assert.eq(tdb.getProfilingStatus().filter.op, "remove");
  assert.commandWorked(tdb.items.deleteOne({ sku: "a" }));
  tdb.items.find({}).toArray();
  tdb.setProfilingLevel(0, { filter: "unset", slowms: 100 });
  assert.eq(tdb.getProfilingStatus().filter, undefined);
  assert.eq(tdb.getProfilingStatus().slowms, 100);
  const removes = tdb.system.profile.find({ op: "remove" }).toArray();
  assert.eq(removes.length, 1);
  assert.eq(removes[0].ndeleted, 1);
  // A level outside 0..2 only reads, as mongod's; a bad sampleRate is refused.
  assert.eq(tdb.runCommand({ profile: 5 }).was, 0);
  assert.commandFailedWithCode(() => tdb.runCommand({ profile: 1, sampleRate: 2 }), 2);
  assert.eq(tdb.getProfilingStatus().was, 0);
}

// --- serverStatus -----------------------------------------------------------
{
  const s = db.serverStatus();
  const cache = s.wiredTiger.cache;
  assert.gte(cache["maximum bytes configured"], 1024 * 1024);
  assert.gte(cache["bytes currently in the cache"], 1);
  assert.gte(cache["tracked dirty bytes in the cache"], 0);
  assert.gte(cache["pages read into cache"], 0);
  assert.gte(cache["pages written from cache"], 0);
  assert.gte(s.connections.current, 1);
  assert.gte(s.connections.active, 1, "this serverStatus runs on an active connection");
  assert.gte(s.connections.totalCreated, s.connections.current);
  assert.gte(s.connections.available, 1);

  // serverStatus counters are longs, as mongod's: compare them as numbers.
  const counts = (c) => ({ total: Number(c.open.total), noTimeout: Number(c.open.noTimeout),
                           pinned: Number(c.open.pinned), opened: Number(c.totalOpened),
                           timedOut: Number(c.timedOut) });
  const before = counts(s.metrics.cursor);
  const cur = tdb.items.find({}).batchSize(1).noCursorTimeout();
  cur.next();  // opens the server cursor
  const during = counts(db.serverStatus().metrics.cursor);
  assert.eq(during.total, before.total + 1);
  assert.eq(during.noTimeout, before.noTimeout + 1);
  assert.eq(during.opened, before.opened + 1);
  assert.eq(during.pinned, 0);
  cur.close();
  assert.eq(counts(db.serverStatus().metrics.cursor).total, before.total);
}

// --- cursorTimeoutMillis at run time ------------------------------------------
{
  const was = Number(db.adminCommand({ getParameter: 1, cursorTimeoutMillis: 1 }).cursorTimeoutMillis);
  const timedOut = Number(db.serverStatus().metrics.cursor.timedOut);
  const res = assert.commandWorked(db.adminCommand({ setParameter: 1, cursorTimeoutMillis: 500 }));
  assert.eq(Number(res.was), was);
  assert.eq(Number(db.adminCommand({ getParameter: 1, cursorTimeoutMillis: 1 }).cursorTimeoutMillis), 500);
  const first = tdb.runCommand({ find: "items", batchSize: 1 });
  // Wait until no cursor that can time out is left open: ours and any that
  // earlier scripts on this shared server left idle. Polled rather than slept
  // on: the server's reaper thread may run seconds late on a loaded machine,
  // and touching our cursor to check it would keep it alive.
  const reapable = () => {
    const c = db.serverStatus().metrics.cursor;
    return Number(c.open.total) - Number(c.open.noTimeout);
  };
  const deadline = Date.now() + 60000;
  while (reapable() > 0 && Date.now() < deadline) sleep(100);
  assert.eq(reapable(), 0, "idle cursors are reaped under cursorTimeoutMillis 500");
  assert.commandFailedWithCode(() => tdb.runCommand({ getMore: first.cursor.id, collection: "items" }), 43);
  // At least this cursor: idle cursors that earlier scripts on this shared
  // server left open (tailable ones, say) time out under 500 ms as well.
  assert.gte(Number(db.serverStatus().metrics.cursor.timedOut), timedOut + 1);
  assert.commandWorked(db.adminCommand({ setParameter: 1, cursorTimeoutMillis: was }));
}

assert.commandWorked(tdb.dropDatabase());
print("profiler_and_server_status.js passed");
