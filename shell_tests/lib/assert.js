// Assertion helpers for tigerdoc's mongosh scripts, in the style of the
// legacy mongo shell's jstests (mongosh has none of its own). Load with
//   load(__dirname + "/lib/assert.js");
// Every failure throws an Error whose message carries both values, so the
// runner's output says what was expected and what came back.
//
// Replaces mongosh's global `assert` (Node's) with a superset: assert(cond,
// msg) still works.

(function () {
  "use strict";

  function show(v) {
    if (v === undefined) return "undefined";
    try {
      return EJSON.stringify(v, null, 0, { relaxed: true });
    } catch (e) {
      return String(v);
    }
  }

  function fail(what, msg) {
    throw new Error((msg ? msg + ": " : "") + what);
  }

  // Deep copy with object keys sorted, so docEq ignores field order the way
  // the legacy shell's assert.docEq does.
  function sortKeys(v) {
    if (Array.isArray(v)) return v.map(sortKeys);
    // Documents from the driver are not always plain Objects; BSON values
    // (ObjectId, Long, ...) carry _bsontype and stay as they are.
    if (v && typeof v === "object" && !v._bsontype && !(v instanceof Date) &&
        !(v instanceof RegExp)) {
      const out = {};
      for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]);
      return out;
    }
    return v;
  }

  function assert(cond, msg) {
    if (!cond) fail("assertion failed", msg);
  }

  // Strict equality for primitives; EJSON equality for objects (ObjectId,
  // Long, Date, documents), which is what a test usually means.
  assert.eq = function (actual, expected, msg) {
    const same =
      actual === expected ||
      (actual !== null && expected !== null && typeof actual === "object" &&
       typeof expected === "object" && show(actual) === show(expected));
    if (!same) fail("expected " + show(expected) + ", got " + show(actual), msg);
  };

  assert.neq = function (actual, unexpected, msg) {
    if (actual === unexpected || show(actual) === show(unexpected)) {
      fail("expected anything but " + show(unexpected), msg);
    }
  };

  // Documents (or arrays of documents) equal up to field order.
  assert.docEq = function (actual, expected, msg) {
    if (show(sortKeys(actual)) !== show(sortKeys(expected))) {
      fail("documents differ: expected " + show(expected) + ", got " + show(actual), msg);
    }
  };

  assert.gte = function (actual, bound, msg) {
    if (!(actual >= bound)) fail("expected >= " + show(bound) + ", got " + show(actual), msg);
  };

  // A command reply with ok: 1, or a CRUD helper result that was
  // acknowledged. Returns the reply for chaining.
  assert.commandWorked = function (res, msg) {
    if (res === null || typeof res !== "object") fail("not a reply: " + show(res), msg);
    const worked = "ok" in res ? res.ok === 1 || res.ok === true : res.acknowledged === true;
    if (!worked) fail("command failed: " + show(res), msg);
    if (res.writeErrors && res.writeErrors.length) fail("write errors: " + show(res), msg);
    return res;
  };

  // A reply {ok: 0, code: <code>} (code may be a list of acceptable codes).
  // mongosh's db.runCommand() throws on ok: 0 instead of returning the
  // reply, so `res` may also be a function running the command: its error
  // (a MongoServerError carrying code/codeName) is checked instead.
  assert.commandFailedWithCode = function (res, code, msg) {
    const codes = Array.isArray(code) ? code : [code];
    if (typeof res === "function") {
      try {
        res = res();
      } catch (e) {
        if (!codes.includes(e.code)) {
          fail("expected code " + show(code) + ", got " + show(e.code) + ": " + e, msg);
        }
        return e;
      }
    }
    if (res === null || typeof res !== "object" || res.ok !== 0) {
      fail("expected failure with code " + show(code) + ", got " + show(res), msg);
    }
    if (!codes.includes(res.code)) {
      fail("expected code " + show(code) + ", got " + show(res.code) + " in " + show(res), msg);
    }
    return res;
  };

  // fn() throws a server error with the given code (what mongosh's helpers
  // do on ok: 0). Returns the error.
  assert.throwsWithCode = function (fn, code, msg) {
    try {
      fn();
    } catch (e) {
      if (e.code !== code) fail("expected error code " + code + ", got " + show(e.code) + ": " + e, msg);
      return e;
    }
    fail("expected an error with code " + code + ", nothing was thrown", msg);
  };

  globalThis.assert = assert;
})();

// A command's reply on `database`, ok: 0 included: mongosh's runCommand
// throws on ok: 0, and the thrown MongoServerError carries the reply's
// fields. The result is assigned before returning because mongosh does not
// await a bare `return call()` inside try, so the catch would miss the error.
function commandReply(database, cmd) {
  try {
    const res = database.runCommand(cmd);
    return res;
  } catch (e) {
    return { ok: 0, code: e.code, codeName: e.codeName, errmsg: e.errmsg, errInfo: e.errInfo };
  }
}
globalThis.commandReply = commandReply;
