// Helpers for the differential scripts, which compare query answers on an
// indexed collection with those on a collection without indexes. Load with
//   load(__dirname + "/lib/differential.js");  (after lib/assert.js)

// Inserts docs into `indexed` in one unordered insert (one round trip
// instead of one per document: these scripts spent most of their time in
// single inserts) and the documents it accepted into `plain`, so both hold
// the same set. Returns the insert's writeErrors (each names the refused
// document by its index in docs), [] when the index refused none.
function insertIntoBoth(indexed, plain, docs) {
  const res = commandReply(indexed.getDB(), { insert: indexed.getName(), documents: docs, ordered: false });
  const writeErrors = res.writeErrors || [];
  assert.eq(res.ok, 1, JSON.stringify(res));
  assert.eq(res.n + writeErrors.length, docs.length, JSON.stringify(res));
  const refused = new Set(writeErrors.map((e) => e.index));
  const accepted = docs.filter((_, i) => !refused.has(i));
  if (accepted.length > 0) assert.commandWorked(plain.insertMany(accepted));
  return writeErrors;
}
globalThis.insertIntoBoth = insertIntoBoth;
