// Run by .ci/pack-check inside the scratch project that installed the tarball, once per Node
// version: require('docket') as a CommonJS user does, through the package's `exports` map.
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');

const docket = require('docket');
const entry = require.resolve('docket');
assert.equal(path.relative(process.cwd(), entry), path.join('node_modules', 'docket', 'dist', 'index.js'));
for (const name of ['createScheduler', 'createDashboard', 'serveDashboard', 'instrumentOpenTelemetry', 'defaultBackoff']) {
  assert.equal(typeof docket[name], 'function', `require('docket').${name}`);
}
const err = new docket.ValidationError('options.queue', 'bad');
assert.ok(err instanceof docket.DocketError && err instanceof Error);
assert.equal(err.code, 'ERR_VALIDATION');
// Only the exports map's entry: deep paths into dist/ are not part of the API.
assert.throws(() => require('docket/dist/scheduler'), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
console.log(`require('docket') on Node ${process.version}: ${Object.keys(docket).length} exports`);
