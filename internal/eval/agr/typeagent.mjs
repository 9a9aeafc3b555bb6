// Times TypeAgent's AST matcher on one grammar's inputs, as timings.tsv
// was measured: the grammar compiled without optimizations, warm-up
// rounds, then ROUNDS timed rounds over every input. It prints the mean
// wall-clock microseconds per input.
//
//   node typeagent.mjs PACKAGE GRAMMAR.agr ROUNDS < inputs.jsonl
//
// PACKAGE is TypeAgent's ts/packages/actionGrammar directory, built
// (dist/index.js). The inputs are JSON strings, one a line. An input the
// matcher throws on is timed with its throw, as the throw is part of the
// cost.
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const [pkg, grammarFile, roundsArg] = process.argv.slice(2);
const rounds = parseInt(roundsArg, 10);
if (!pkg || !grammarFile || !(rounds > 0)) {
    process.stderr.write("usage: node typeagent.mjs PACKAGE GRAMMAR.agr ROUNDS < inputs.jsonl\n");
    process.exit(2);
}
const ta = await import(pathToFileURL(path.join(pkg, "dist", "index.js")).href);
const grammar = ta.loadGrammarRules(path.resolve(grammarFile));
const inputs = fs
    .readFileSync(0, "utf-8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
if (inputs.length === 0) {
    process.stderr.write("typeagent.mjs: no inputs\n");
    process.exit(2);
}

const run = () => {
    for (const input of inputs) {
        try {
            ta.matchGrammar(grammar, input);
        } catch {
            // timed with the rest
        }
    }
};
for (let i = 0; i < Math.max(20, Math.ceil(rounds / 4)); i++) run();
const t0 = performance.now();
for (let i = 0; i < rounds; i++) run();
const t1 = performance.now();
process.stdout.write(`${(((t1 - t0) * 1000) / (rounds * inputs.length)).toFixed(3)}\n`);
