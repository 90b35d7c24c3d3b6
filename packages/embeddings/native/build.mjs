#!/usr/bin/env node
// Builds the native kernels (native/*.cc) with the node-gyp that npm ships, at install time. A machine without a
// C++ toolchain still installs: USE-lite then runs on TF.js (slower), and the registry says so when it starts.
import { spawnSync } from 'node:child_process';

const nodeGyp = process.env['npm_config_node_gyp'];
const command = nodeGyp ? [process.execPath, nodeGyp] : ['node-gyp'];
const result = spawnSync(command[0], [...command.slice(1), 'rebuild'], { stdio: 'inherit' });
if (result.status !== 0) {
  console.warn(
    '@agentry/embeddings: the native matrix multiply did not build (see above); USE-lite embeddings will run on ' +
      'TF.js, several times slower. Install python3, make and a C++ compiler, then run npm rebuild @agentry/embeddings.',
  );
}
