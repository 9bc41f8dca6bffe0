// Wire compression from mongosh: its Node.js driver has zlib built in (snappy
// and zstd need native modules mongosh's npm package does not carry; the
// libmongoc and pymongo tests cover those). A connection asking for
// compressors=zlib gets it in hello, sends compressed requests and gets
// compressed replies, as serverStatus's network.compression counters show.
load(__dirname + "/lib/assert.js");

function zlibCounters() {
  return db.adminCommand({ serverStatus: 1 }).network.compression.zlib;
}

const before = zlibCounters();
const compressed = new Mongo(db.getMongo()._uri + "&compressors=zlib");
const cdb = compressed.getDB("shell_compression_zlib");
cdb.c.drop();
assert.commandWorked(cdb.c.insertMany(Array.from({ length: 300 }, (_, i) => ({ i, text: "z".repeat(400) }))));
const docs = cdb.c.find().sort({ i: 1 }).toArray();
assert.eq(docs.length, 300);
assert.eq(docs[299].text, "z".repeat(400));
const after = zlibCounters();
const received = after.decompressor.bytesIn - before.decompressor.bytesIn;
const sent = after.compressor.bytesOut - before.compressor.bytesOut;
const sentUncompressed = after.compressor.bytesIn - before.compressor.bytesIn;
assert(received > 0, "no compressed requests arrived");
assert(sent > 0, "no compressed replies left");
// 400-byte runs of "z" compress well: the replies shrank.
assert(sent < sentUncompressed / 4, "replies of " + sentUncompressed + " bytes sent as " + sent);
compressed.close();
