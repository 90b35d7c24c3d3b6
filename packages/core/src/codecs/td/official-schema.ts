/**
 * Validation against the official W3C WoT TD 1.1 JSON Schema, as shipped in the `wot-thing-description-types` npm
 * package. The schema is draft-07, so it gets its own draft-07 Ajv instance (core's shared instance is 2020-12),
 * compiled once, on first use, so that importing core stays cheap.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import tdSchema from 'wot-thing-description-types/schema/td-json-schema-validation.json' with {
  type: 'json',
};
import type { ValidationIssue } from '../../issues.js';
import { type BranchValidator, explainSchemaErrors } from './schema-errors.js';

// ajv-formats is CommonJS; depending on the loader its default export is the function or a namespace holding it.
type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  (addFormatsModule as unknown as FormatsPlugin);

/** The `spec` every issue of this check carries. */
export const OFFICIAL_SCHEMA_SPEC = 'WoT TD 1.1 JSON Schema';

/** The version string of the schema we validate against (`1.1-12-March-2025`). */
export const OFFICIAL_SCHEMA_VERSION: string = (tdSchema as { version: string }).version;
const SCHEMA_ID: string = (tdSchema as { $id: string }).$id;

interface Compiled {
  ajv: Ajv;
  validate: ValidateFunction;
  branches: WeakMap<object, ValidateFunction>;
}
let compiled: Compiled | undefined;

function getCompiled(): Compiled {
  if (compiled === undefined) {
    // `verbose` puts each failing value and the failing keyword's schema into the errors, which is what lets us
    // tell which branch of a oneOf was meant; it costs nothing on valid documents.
    const ajv = new Ajv({ strict: false, allErrors: true, verbose: true });
    addFormats(ajv);
    compiled = { ajv, validate: ajv.compile(tdSchema), branches: new WeakMap() };
  }
  return compiled;
}

/** Validates `branch` (one alternative of a failed oneOf/anyOf) on its own, with the TD schema's definitions. */
const validateBranch: BranchValidator = (branch, data) => {
  if (typeof branch !== 'object' || branch === null) return [];
  const { ajv, branches } = getCompiled();
  let validate = branches.get(branch);
  if (validate === undefined) {
    validate = ajv.compile(anchorRefs(branch) as object);
    branches.set(branch, validate);
  }
  if (validate(data)) return [];
  return [...(validate.errors ?? [])];
};

/** Branch schemas use refs local to the TD schema (`#/definitions/...`); make them absolute so they compile alone. */
function anchorRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anchorRefs);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith('#')
        ? SCHEMA_ID + value
        : anchorRefs(value);
  }
  return out;
}

/**
 * Every way `document` fails the official TD 1.1 JSON Schema, as error issues with JSON pointers. Ajv's reports of
 * failed unions are collapsed to the most useful message per location. An empty array means the document is valid.
 */
export function validateThingDescription(document: unknown): ValidationIssue[] {
  const { validate } = getCompiled();
  if (validate(document)) return [];
  const errors: ErrorObject[] = [...(validate.errors ?? [])];
  return explainSchemaErrors(errors, validateBranch).map((problem) => ({
    severity: 'error',
    pointer: problem.pointer,
    code: `td.schema.${problem.keyword}`,
    message: problem.message,
    spec: OFFICIAL_SCHEMA_SPEC,
  }));
}
