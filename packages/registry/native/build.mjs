#!/usr/bin/env node
// Builds the native matrix multiply (native/gemm.cc) with the node-gyp that npm ships, at install time. A machine
// without a C++ toolchain still installs: the registry then runs USE-lite on TF.js (slower) and says so.
import { spawnSync } from 'node:child_process';

const nodeGyp = process.env['npm_config_node_gyp'];
const command = nodeGyp ? [process.execPath, nodeGyp] : ['node-gyp'];
const result = spawnSync(command[0], [...command.slice(1), 'rebuild'], { stdio: 'inherit' });
if (result.status !== 0) {
  console.warn(
    '@agentry/registry: the native matrix multiply did not build (see above); USE-lite embeddings will run on ' +
      'TF.js, several times slower. Install python3, make and a C++ compiler, then run npm rebuild @agentry/registry.',
  );
}
