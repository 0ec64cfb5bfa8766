#!/usr/bin/env node
// Drives the Scala.js build of the Kaitai Struct compiler, which has a JavaScript API and no CLI.
// Usage: node ksc.js OUT_DIR TARGET[,TARGET...] SPEC.ksy [SPEC.ksy ...]
// Writes OUT_DIR/<target>/<generated file> for every spec and target; exits 1 on a compile error.
"use strict";
const fs = require("fs");
const path = require("path");
const yaml = require("js-yaml");
const KaitaiStructCompiler = require("kaitai-struct-compiler");

const [outDir, targetList, ...specs] = process.argv.slice(2);
if (!outDir || !targetList || specs.length === 0) {
  console.error("usage: node ksc.js OUT_DIR TARGET[,TARGET...] SPEC.ksy [SPEC.ksy ...]");
  process.exit(2);
}

function loadYaml(file) {
  return yaml.load(fs.readFileSync(file, "utf8"));
}

// meta/imports name other specs relative to the importing file's folder (mode "rel") or to specs/.
function importerFor(specDir) {
  return {
    importYaml(name, mode) {
      const file = path.resolve(specDir, name.endsWith(".ksy") ? name : name + ".ksy");
      return Promise.resolve(loadYaml(file));
    },
  };
}

async function main() {
  // debug=true: explicit _read() and recorded field positions, which carry byte offsets into errors.
  // "python_fast" is the Python target without them: the readers the normal path runs.
  const debugFor = { python: true, python_fast: false, graphviz: false };
  const languageOf = { python_fast: "python" };
  for (const spec of specs) {
    const ksy = loadYaml(spec);
    for (const target of targetList.split(",")) {
      let files;
      try {
        files = await KaitaiStructCompiler.compile(languageOf[target] || target, ksy, importerFor(path.dirname(spec)),
                                                   !!debugFor[target]);
      } catch (err) {
        console.error(`${spec}: ${target}: ${err && err.message ? err.message : err}`);
        process.exit(1);
      }
      const dir = path.join(outDir, target);
      fs.mkdirSync(dir, { recursive: true });
      for (const [name, source] of Object.entries(files)) {
        fs.writeFileSync(path.join(dir, name), source);
      }
    }
  }
  console.log(`kaitai-struct-compiler ${KaitaiStructCompiler.version}: ${specs.length} spec(s) -> ${targetList}`);
}

main();
