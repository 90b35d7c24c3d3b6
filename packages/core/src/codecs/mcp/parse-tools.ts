/**
 * MCP tools → canonical operations. Annotation hints become the canonical effect fields only when present (an absent
 * hint is the protocol's pessimistic default, not a statement); the rest of a tool stays in `extensions.mcp`.
 */
import { joinPointer } from '../../json/pointer.js';
import { ObjectReader } from '../../json/reader.js';
import { checkSchemaDocument } from '../../json-schema/validator.js';
import type { JsonObject, JsonSchema, Operation } from '../../model/agent.js';
import { CODE, MAPPED_HINTS, SECTION, TOOL_FIELDS, TOOL_NAME } from './rules.js';

/** The operations of the `tools` array of `server`; tools without a usable name are reported and skipped. */
export function readTools(server: ObjectReader): Operation[] {
  const items = server.array('tools', { section: SECTION.tool });
  if (items === undefined) return [];
  const toolsAt = server.at('tools');
  const operations: Operation[] = [];
  const seen = new Set<string>();
  items.forEach((item, index) => {
    const tool = ObjectReader.of(
      item,
      joinPointer(toolsAt, index),
      server.issues,
      CODE,
      'A tool',
      SECTION.tool,
    );
    if (tool === undefined) return;
    const operation = readTool(tool);
    if (operation === undefined) return;
    if (seen.has(operation.name)) {
      tool.issues.error(
        tool.at('name'),
        `${CODE}.tool.duplicate`,
        `Tool name "${operation.name}" is already used by another tool of this server; tool names must be unique.`,
        SECTION.toolName,
      );
      return;
    }
    seen.add(operation.name);
    operations.push(operation);
  });
  return operations;
}

function readTool(tool: ObjectReader): Operation | undefined {
  const name = tool.text('name', { required: true, section: SECTION.tool });
  // An empty name is already an error; a tool without a name cannot become an operation.
  const usable = name !== undefined && name.trim() !== '';
  if (usable && !TOOL_NAME.test(name)) {
    tool.issues.warning(
      tool.at('name'),
      `${CODE}.tool.name`,
      `Tool name "${name}" should be 1–128 characters of letters, digits, "_", "-" and "."; some clients reject other names.`,
      SECTION.toolName,
    );
  }
  const title = tool.string('title', { section: SECTION.tool });
  const description = tool.string('description', { section: SECTION.tool });
  const input = readToolSchema(tool, 'inputSchema', true);
  const output = readToolSchema(tool, 'outputSchema', false);
  const operation: Operation = { name: name ?? '' };
  if (title !== undefined) operation.title = title;
  if (description !== undefined) operation.description = description;
  if (input !== undefined) operation.input = input;
  if (output !== undefined) operation.output = output;

  const extension: JsonObject = tool.rest(TOOL_FIELDS) ?? {};
  const annotations = tool.child('annotations', { section: SECTION.annotations });
  if (annotations !== undefined) {
    const unmapped = readAnnotations(annotations, operation);
    if (unmapped !== undefined) extension['annotations'] = unmapped;
  }
  if (Object.keys(extension).length > 0) operation.extensions = { mcp: extension };
  return usable ? operation : undefined;
}

/** A tool schema must be an object JSON Schema whose `type` is `"object"`. */
function readToolSchema(tool: ObjectReader, key: string, required: boolean): JsonSchema | undefined {
  const schema = tool.object(key, { required, section: SECTION.toolSchema });
  if (schema === undefined) return undefined;
  const pointer = tool.at(key);
  if (schema['type'] !== 'object') {
    const found = schema['type'] === undefined ? 'no "type"' : `type ${JSON.stringify(schema['type'])}`;
    tool.issues.error(
      schema['type'] === undefined ? pointer : `${pointer}/type`,
      `${CODE}.tool.schema-type`,
      `The tool's ${key} must be a JSON Schema with "type": "object" (tool arguments and structured results are objects); it has ${found}.`,
      SECTION.toolSchema,
    );
  }
  checkSchemaDocument(schema, pointer, tool.issues, {
    codePrefix: CODE,
    section: SECTION.toolSchema,
    what: `The tool's ${key}`,
  });
  return schema;
}

/**
 * Copies the hints with canonical counterparts onto `operation` and returns the other annotation fields, or
 * undefined when there are none. An empty annotations object is kept (as `{}`) so that it is written back.
 */
function readAnnotations(annotations: ObjectReader, operation: Operation): JsonObject | undefined {
  const section = SECTION.annotations;
  const readOnly = annotations.boolean('readOnlyHint', { section });
  const destructive = annotations.boolean('destructiveHint', { section });
  const idempotent = annotations.boolean('idempotentHint', { section });
  annotations.string('title', { section });
  annotations.boolean('openWorldHint', { section });
  if (readOnly !== undefined) operation.safe = readOnly;
  if (idempotent !== undefined) operation.idempotent = idempotent;
  if (destructive !== undefined) operation.sensitivity = destructive ? 'destructive' : 'standard';
  const rest = annotations.rest(MAPPED_HINTS);
  if (rest !== undefined) return rest;
  return Object.keys(annotations.value).length === 0 ? {} : undefined;
}
