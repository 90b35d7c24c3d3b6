// Loaded before every test file (scripts/run-tests.mjs): every fast-check property runs from one fixed seed, so a
// failure in CI is the same failure on a developer's machine. A property that names its own seed keeps it;
// FAST_CHECK_SEED explores others (`FAST_CHECK_SEED=7 npm run test:unit`).
import fc from 'fast-check';

fc.configureGlobal({ seed: Number(process.env['FAST_CHECK_SEED'] ?? 20) });
