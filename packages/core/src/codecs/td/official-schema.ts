/**
 * Validation against the official W3C WoT TD 1.1 JSON Schema, as shipped in the `wot-thing-description-types` npm
 * package. The schema is draft-07, so it gets its own draft-07 Ajv instances (core's shared instance is 2020-12):
 * one for a quick first pass that only says whether a TD is valid, one that collects and explains every error of
 * a TD that is not. Each is compiled once, on first use, so that importing core stays cheap. Both match the
 * schema's patterns and gather errors in linear time (json-schema/ajv-code.ts): its `scheme` pattern `.+:.*`
 * backtracks quadratically in JavaScript's engine, and TDs come from strangers.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import tdSchema from 'wot-thing-description-types/schema/td-json-schema-validation.json' with {
  type: 'json',
};
import type { ValidationIssue } from '../../issues.js';
import { plainJsonText } from '../../json/plain-text.js';
import { isObject, jsonEqual } from '../../json/values.js';
import { AJV_CODE_OPTIONS } from '../../json-schema/ajv-code.js';
import {
  isEvidentlyValidContext,
  isEvidentlyValidDataSchema,
  isEvidentlyValidTypeDeclaration,
} from './first-pass-checks.js';
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
    const ajv = new Ajv({ strict: false, allErrors: true, verbose: true, code: AJV_CODE_OPTIONS });
    addFormats(ajv);
    compiled = { ajv, validate: ajv.compile(tdSchema), branches: new WeakMap() };
  }
  return compiled;
}

/** Security schemes seen, by JSON text, with their verdicts: bounded in count and in length of text. */
const MAX_REMEMBERED = 512;
const MAX_REMEMBERED_LENGTH = 2_000;

/**
 * Where the first pass checks a definition its own way instead of through Ajv's code for it. Security schemes are
 * small and repeat from one TD to the next (`{"scheme": "nosec"}`) while checking one is dear (ten alternatives
 * are tried), so verdicts are remembered; action DataSchemas, `@context` and `@type` get quick checks
 * (first-pass-checks.ts), and Ajv's code when a quick check cannot vouch for the value.
 */
const SHORTCUTS = [
  { path: ['properties', 'securityDefinitions', 'additionalProperties'], definition: 'securityScheme' },
  { path: ['properties', '@context'], definition: 'thing-context' },
  { path: ['properties', '@type'], definition: 'type_declaration' },
  { path: ['definitions', 'action_element', 'properties', 'input'], definition: 'dataSchema' },
  { path: ['definitions', 'action_element', 'properties', 'output'], definition: 'dataSchema' },
] as const;
type Shortcut = (typeof SHORTCUTS)[number]['definition'];
const QUICK_CHECKS: Readonly<Record<Exclude<Shortcut, 'securityScheme'>, (value: unknown) => boolean>> = {
  'thing-context': isEvidentlyValidContext,
  type_declaration: isEvidentlyValidTypeDeclaration,
  dataSchema: isEvidentlyValidDataSchema,
};
const SHORTCUT_KEYWORD = 'x-agentry-shortcut';

let firstPass: ValidateFunction | undefined;

/**
 * The first pass answers only "valid or not", and most TDs are valid: the same schema, without collecting errors,
 * and with the shortcuts above. Each shortcut agrees with the definition it stands for (a verdict depends on the
 * value alone: draft-07 has no dynamic scope), so the pass agrees with the full schema; only a TD it rejects is
 * validated again in full, for the errors.
 */
function getFirstPass(): ValidateFunction {
  if (firstPass === undefined) {
    const ajv = new Ajv({ strict: false, code: AJV_CODE_OPTIONS });
    addFormats(ajv);
    const definitions = new Map<Shortcut, ValidateFunction>();
    const definition = (name: Shortcut): ValidateFunction => {
      let validate = definitions.get(name);
      if (validate === undefined) {
        validate = ajv.getSchema(`${SCHEMA_ID}#/definitions/${name}`)!;
        definitions.set(name, validate);
      }
      return validate;
    };
    const verdicts = new Map<string, boolean>();
    const rememberedSecurityScheme = (data: unknown): boolean => {
      // Only plain JSON data has a faithful text (what JSON.stringify drops, Ajv may still see).
      const text = plainJsonText(data);
      if (text === undefined || text.length > MAX_REMEMBERED_LENGTH)
        return definition('securityScheme')(data) === true;
      let verdict = verdicts.get(text);
      if (verdict === undefined) {
        verdict = definition('securityScheme')(data) === true;
        if (verdicts.size >= MAX_REMEMBERED) verdicts.clear();
        verdicts.set(text, verdict);
      }
      return verdict;
    };
    ajv.addKeyword({
      keyword: SHORTCUT_KEYWORD,
      schemaType: 'string',
      errors: false,
      validate: (name: Shortcut, data: unknown): boolean =>
        name === 'securityScheme'
          ? rememberedSecurityScheme(data)
          : QUICK_CHECKS[name](data) || definition(name)(data) === true,
    });
    firstPass = ajv.compile(withShortcuts(tdSchema));
  }
  return firstPass;
}

/** The TD schema with each shortcut's `$ref` replaced by the shortcut keyword. */
function withShortcuts(schema: object): object {
  const copy = structuredClone(schema) as Record<string, unknown>;
  for (const { path, definition } of SHORTCUTS) {
    let parent: unknown = copy;
    for (const key of path.slice(0, -1)) parent = isObject(parent) ? parent[key] : undefined;
    const last = path[path.length - 1]!;
    // Only where the schema refers to the definition exactly so: a schema laid out otherwise keeps its own check
    // there (slower, never wrong).
    if (isObject(parent) && jsonEqual(parent[last], { $ref: `#/definitions/${definition}` }))
      parent[last] = { [SHORTCUT_KEYWORD]: definition };
  }
  return copy;
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
  if (getFirstPass()(document)) return [];
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
