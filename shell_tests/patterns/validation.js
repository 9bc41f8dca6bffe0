// Schema validation, MongoDB's own: first the manual's examples as written
// ("Specify JSON Schema Validation", "Specify Validation With Query
// Operators", "Specify Validation Level for Existing Documents", "Choose
// How to Handle Invalid Documents", "Bypass Schema Validation"), checking
// the results and errInfo MongoDB prints; then what tigerdoc users rely on:
// collMod, getCollectionInfos(), $jsonSchema in queries, refusals.
load(__dirname + "/../lib/assert.js");

db = db.getSiblingDB("shell_validation");
assert.commandWorked(db.dropDatabase());

// The error a mongosh helper throws for a refused write.
function refused(fn, msg) {
  const e = assert.throwsWithCode(fn, 121, msg);
  assert.eq(e.errmsg, "Document failed validation", msg + ": errmsg");
  return e.errInfo;
}

// --- Specify JSON Schema Validation ----------------------------------------
db.createCollection("students", {
   validator: {
      $jsonSchema: {
         bsonType: "object",
         title: "Student Object Validation",
         required: [ "address", "major", "name", "year" ],
         properties: {
            name: {
               bsonType: "string",
               description: "'name' must be a string and is required"
            },
            year: {
               bsonType: "int",
               minimum: 2017,
               maximum: 3017,
               description: "'year' must be an integer in [ 2017, 3017 ] and is required"
            },
            gpa: {
               bsonType: [ "double" ],
               description: "'gpa' must be a double if the field exists"
            }
         }
      }
   }
} )
{
  const errInfo = refused(() => db.students.insertOne( {
     name: "Alice",
     year: Int32( 2019 ),
     major: "History",
     gpa: Int32(3),
     address: {
        city: "NYC",
        street: "33rd Street"
     }
  } ), "students: gpa is an int");
  assert(errInfo.failingDocumentId instanceof ObjectId, "failingDocumentId is the ObjectId");
  assert.docEq(errInfo.details, {
    operatorName: "$jsonSchema",
    title: "Student Object Validation",
    schemaRulesNotSatisfied: [ {
      operatorName: "properties",
      propertiesNotSatisfied: [ {
        propertyName: "gpa",
        description: "'gpa' must be a double if the field exists",
        details: [ {
          operatorName: "bsonType",
          specifiedAs: { bsonType: [ "double" ] },
          reason: "type did not match",
          consideredValue: 3,
          consideredType: "int"
        } ]
      } ]
    } ]
  }, "students errInfo as in the manual");
  assert.eq(Object.keys(errInfo.details), ["operatorName", "title", "schemaRulesNotSatisfied"],
            "field order of details");
}
assert.commandWorked(db.students.insertOne( {
   name: "Alice",
   year: NumberInt(2019),
   major: "History",
   gpa: Double(3.0),
   address: {
      city: "NYC",
      street: "33rd Street"
   }
} ))
{
  const docs = db.students.find().toArray();
  assert.eq(docs.length, 1, "one student");
  assert.eq(docs[0].name, "Alice");
  assert.eq(docs[0].gpa, 3);
}

// --- Specify Validation With Query Operators -------------------------------
db.createCollection( "orders", {
   validator: {
      $expr:
         {
            $eq: [
               "$totalWithVAT",
               { $multiply: [ "$total", { $sum:[ 1, "$VAT" ] } ] }
            ]
         }
   }
} )
{
  const errInfo = refused(() => db.orders.insertOne( {
     total: NumberDecimal("141"),
     VAT: NumberDecimal("0.20"),
     totalWithVAT: NumberDecimal("169")
  } ), "orders: wrong total");
  assert.docEq(errInfo.details, {
    operatorName: "$expr",
    specifiedAs: { $expr: { $eq: [ "$totalWithVAT", { $multiply: [ "$total", { $sum: [ 1, "$VAT" ] } ] } ] } },
    reason: "expression did not match",
    expressionResult: false
  }, "orders errInfo");
}
assert.commandWorked(db.orders.insertOne( {
   total: NumberDecimal("141"),
   VAT: NumberDecimal("0.20"),
   totalWithVAT: NumberDecimal("169.2")
} ))

// --- Specify Validation Level for Existing Documents -----------------------
db.contacts.insertMany([
   { "_id": 1, "name": "Anne", "phone": "+1 555 123 456", "city": "London", "status": "Complete" },
   { "_id": 2, "name": "Ivan", "city": "Vancouver" }
])
// strict
assert.commandWorked(db.runCommand( {
   collMod: "contacts",
   validator: { $jsonSchema: {
      bsonType: "object",
      required: [ "phone", "name" ],
      properties: {
         phone: {
            bsonType: "string",
            description: "phone must be a string and is required"
         },
         name: {
            bsonType: "string",
            description: "name must be a string and is required"
         }
      }
   } },
   validationLevel: "strict"
} ))
refused(() => db.contacts.updateOne( { _id: 2 }, { $set: { name: 20 } } ), "strict: invalid document");
{
  const errInfo = refused(() => db.contacts.updateOne( { _id: 1 }, { $set: { name: 10 } } ),
                          "strict: valid document");
  assert.eq(errInfo.failingDocumentId, 1);
  assert.docEq(errInfo.details, {
    operatorName: "$jsonSchema",
    schemaRulesNotSatisfied: [ {
      operatorName: "properties",
      propertiesNotSatisfied: [ {
        propertyName: "name",
        description: "name must be a string and is required",
        details: [ {
          operatorName: "bsonType",
          specifiedAs: { bsonType: "string" },
          reason: "type did not match",
          consideredValue: 10,
          consideredType: "int"
        } ]
      } ]
    } ]
  }, "contacts errInfo as in the manual");
}
// moderate
assert.commandWorked(db.runCommand( { collMod: "contacts", validationLevel: "moderate" } ))
refused(() => db.contacts.updateOne( { _id: 1 }, { $set: { name: 10 } } ), "moderate: valid document");
{
  const res = db.contacts.updateOne( { _id: 2 }, { $set: { name: 20 } } );
  assert.eq(res.modifiedCount, 1, "moderate: the invalid document may be updated");
}
assert.docEq(db.contacts.find().sort({ _id: 1 }).toArray(), [
  { _id: 1, name: "Anne", phone: "+1 555 123 456", city: "London", status: "Complete" },
  { _id: 2, name: 20, city: "Vancouver" }
], "contacts after the updates");

// --- Choose How to Handle Invalid Documents ---------------------------------
db.createCollection( "contacts2", {
   validator: { $jsonSchema: {
      bsonType: "object",
      required: [ "phone" ],
      properties: {
         phone: {
            bsonType: "string",
            description: "must be a string and is required"
         },
         email: {
            bsonType : "string",
            pattern : "@mongodb\\.com$",
            description: "must be a string and end with '@mongodb.com'"
         }
      }
   } },
   validationAction: "error"
} )
{
  const errInfo = refused(() => db.contacts2.insertOne( { name: "Amanda", email: "amanda@xyz.com" } ),
                          "contacts2: action error");
  assert.docEq(errInfo.details.schemaRulesNotSatisfied, [
    { operatorName: "properties", propertiesNotSatisfied: [ {
        propertyName: "email",
        description: "must be a string and end with '@mongodb.com'",
        details: [ { operatorName: "pattern", specifiedAs: { pattern: "@mongodb\\.com$" },
                     reason: "regular expression did not match", consideredValue: "amanda@xyz.com" } ] } ] },
    { operatorName: "required", specifiedAs: { required: [ "phone" ] }, missingProperties: [ "phone" ] }
  ], "contacts2 errInfo");
}
db.createCollection( "contacts3", {
   validator: { $jsonSchema: {
      bsonType: "object",
      required: [ "phone" ],
      properties: {
         phone: { bsonType: "string", description: "must be a string and is required" },
         email: { bsonType : "string", pattern : "@mongodb\\.com$",
                  description: "must be a string and end with '@mongodb.com'" }
      }
   } },
   validationAction: "warn"
} )
assert.commandWorked(db.contacts3.insertOne( { name: "Amanda", email: "amanda@xyz.com" } ))
assert.eq(db.contacts3.countDocuments({}), 1, "warn: the document was inserted");

// --- Bypass Schema Validation ------------------------------------------------
{
  const res = db.runCommand( {
     insert: "students",
     documents: [
        {
           name: "Alice",
           year: Int32( 2016 ),
           major: "History",
           gpa: Double(3.0),
           address: {
              city: "NYC",
              street: "33rd Street"
           }
        }
     ],
     bypassDocumentValidation: true
  } );
  assert.commandWorked(res);
  assert.eq(res.n, 1);
  assert.eq(db.students.find( { year: { $lt: 2017 } } ).toArray().length, 1, "bypassed document");
}

// --- tigerdoc: options, collMod, getCollectionInfos --------------------------
{
  const info = db.getCollectionInfos({ name: "contacts" })[0];
  assert.eq(Object.keys(info.options), ["validator", "validationLevel"], "contacts options");
  assert.eq(info.options.validationLevel, "moderate");
  assert.commandWorked(db.runCommand({ collMod: "contacts", validationAction: "warn" }));
  assert.eq(db.getCollectionInfos({ name: "contacts" })[0].options.validationAction, "warn");
  assert.commandWorked(db.contacts.updateOne({ _id: 1 }, { $set: { name: 10 } }), "warn lets it through");
  const c3 = db.getCollectionInfos({ name: "contacts3" })[0].options;
  assert.eq(c3.validationAction, "warn");
  assert.eq(c3.validator.$jsonSchema.required, ["phone"]);
}
// Refusals with MongoDB's codes.
assert.commandFailedWithCode(() => db.createCollection("bad1", { validationLevel: "lax" }), 2, "validationLevel");
assert.commandFailedWithCode(() => db.createCollection("bad2", { validator: { $where: "true" } }), 2, "$where");
assert.commandFailedWithCode(() => db.createCollection("bad3", { validator: { loc: { $near: [0, 0] } } }), 2, "$near");
assert.commandFailedWithCode(() => db.createCollection("bad4", { validator: { $jsonSchema: { bsonType: "object", foo: 1 } } }), 9, "unknown keyword");
assert.commandFailedWithCode(() => db.createCollection("bad5", { validator: { $jsonSchema: { type: "integer" } } }), 9, "type integer");
assert.commandFailedWithCode(() => db.runCommand({ collMod: "students", validationAction: "ignore" }), 2, "collMod action");
assert.eq(db.getCollectionNames().filter(n => n.startsWith("bad")), [], "nothing was created");

// $jsonSchema as a query operator.
{
  const schema = { $jsonSchema: { required: ["phone"], properties: { phone: { bsonType: "string" } } } };
  assert.eq(db.contacts.find(schema).toArray().map(d => d._id), [1], "find");
  assert.eq(db.contacts.countDocuments(schema), 1, "countDocuments");
  assert.eq(db.contacts.aggregate([{ $match: { $nor: [schema] } }]).toArray().map(d => d._id), [2], "$match");
  assert.commandFailedWithCode(() => db.contacts.find({ $jsonSchema: { format: "email" } }).toArray(), 9, "format");
}
print("validation.js: ok");
