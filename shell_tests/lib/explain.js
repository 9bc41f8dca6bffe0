// Explain helpers for tigerdoc's mongosh scripts. Load with
//   load(__dirname + "/lib/explain.js");

// Every stage of an explain's winning plan, depth first (tigerdoc nests one
// plan per shard under `shards`).
function stagesOf(explain) {
  const out = [];
  (function walk(stage) {
    if (!stage || typeof stage !== "object") return;
    if (stage.stage) out.push(stage);
    for (const key of ["inputStage", "winningPlan", "queryPlan"]) walk(stage[key]);
    for (const key of ["inputStages", "shards"]) (stage[key] || []).forEach(walk);
  })(explain.queryPlanner.winningPlan);
  return out;
}
