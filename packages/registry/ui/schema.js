// JSON Schemas for people: an operation's input and output as readable fields, and a form that builds an input.
import { h } from './dom.js';

function typeOf(schema) {
  if (!schema || typeof schema !== 'object') return 'any';
  if (Array.isArray(schema.enum)) return 'enum';
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type) return type;
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return 'any';
}

function typeLabel(schema) {
  const type = typeOf(schema);
  if (type === 'enum') return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (type === 'array') return `list of ${typeLabel(schema.items ?? {})}`;
  const extras = [];
  if (schema.format) extras.push(schema.format);
  if (schema.minimum !== undefined) extras.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) extras.push(`≤ ${schema.maximum}`);
  if (schema.maxLength !== undefined) extras.push(`≤ ${schema.maxLength} chars`);
  return extras.length ? `${type} (${extras.join(', ')})` : type;
}

/** The fields of a schema as a nested list: name, type, required, description (untrusted text). */
export function schemaFields(schema) {
  if (!schema || typeof schema !== 'object' || Object.keys(schema).length === 0)
    return h('p', { class: 'hint' }, 'Not described.');
  if (typeOf(schema) !== 'object' || !schema.properties)
    return h('ul', { class: 'fields' }, fieldItem('(value)', schema, true));
  const required = new Set(schema.required ?? []);
  return h(
    'ul',
    { class: 'fields' },
    Object.entries(schema.properties).map(([name, property]) =>
      fieldItem(name, property, required.has(name)),
    ),
  );
}

function fieldItem(name, schema, required) {
  const nested =
    typeOf(schema) === 'object' && schema.properties
      ? schemaFields(schema)
      : typeOf(schema) === 'array' && schema.items?.properties
        ? schemaFields(schema.items)
        : undefined;
  return h(
    'li',
    {},
    h('code', { class: 'field-name' }, name),
    ' ',
    h('span', { class: 'field-type' }, typeLabel(schema ?? {})),
    required ? h('span', { class: 'required' }, ' required') : h('span', { class: 'hint' }, ' optional'),
    schema?.description ? h('div', { class: 'field-description' }, schema.description) : undefined,
    schema?.default !== undefined
      ? h('div', { class: 'hint' }, `default ${JSON.stringify(schema.default)}`)
      : undefined,
    nested,
  );
}

let fieldCounter = 0;
const nextId = () => `field-${++fieldCounter}`;

/**
 * A form control for `schema`: `{ node, read() }`, where read() answers the value (undefined when left empty) or
 * throws an Error naming the field. Objects nest as fieldsets; arrays add and remove items; what the form cannot
 * express is edited as JSON.
 */
export function schemaControl(schema, name, required) {
  const type = typeOf(schema);
  const id = nextId();
  const label = h(
    'label',
    { for: id },
    h('span', { class: 'field-name' }, name),
    ' ',
    h('span', { class: 'field-type' }, typeLabel(schema ?? {})),
    required ? h('span', { class: 'required' }, ' required') : undefined,
  );
  const help = schema?.description
    ? h('span', { class: 'hint field-description', id: `${id}-help` }, schema.description)
    : undefined;
  const describedBy = help ? `${id}-help` : undefined;

  if (type === 'object' && schema.properties) {
    const requiredNames = new Set(schema.required ?? []);
    const children = Object.entries(schema.properties).map(([child, property]) => [
      child,
      schemaControl(property, child, requiredNames.has(child)),
    ]);
    const node = h(
      'fieldset',
      { class: 'object' },
      h('legend', {}, name),
      help,
      children.map(([, c]) => c.node),
    );
    return {
      node,
      read() {
        const out = {};
        for (const [child, control] of children) {
          const value = control.read();
          if (value !== undefined) out[child] = value;
        }
        if (Object.keys(out).length === 0 && !required) return undefined;
        return out;
      },
    };
  }
  if (type === 'array' && (schema.items === undefined || typeOf(schema.items) !== 'any')) {
    const items = [];
    const list = h('ol', { class: 'array-items' });
    const add = () => {
      const control = schemaControl(schema.items ?? { type: 'string' }, `${name}[${items.length + 1}]`, true);
      const remove = h('button', { type: 'button', class: 'small' }, 'Remove');
      const item = h('li', {}, control.node, remove);
      const entry = { control, item };
      remove.addEventListener('click', () => {
        items.splice(items.indexOf(entry), 1);
        item.remove();
      });
      items.push(entry);
      list.append(item);
    };
    const addButton = h('button', { type: 'button', class: 'small', onclick: add }, `Add ${name} item`);
    if (required) add();
    const node = h(
      'fieldset',
      { class: 'array' },
      h('legend', {}, name, ' ', h('span', { class: 'field-type' }, typeLabel(schema))),
      help,
      list,
      addButton,
    );
    return {
      node,
      read() {
        const values = items.map(({ control }) => control.read()).filter((v) => v !== undefined);
        return values.length === 0 && !required ? undefined : values;
      },
    };
  }
  if (type === 'enum') {
    const select = h(
      'select',
      { id, 'aria-describedby': describedBy },
      required ? undefined : h('option', { value: '' }, '(none)'),
      schema.enum.map((value, index) => h('option', { value: String(index) }, String(value))),
    );
    return {
      node: h('div', { class: 'control' }, label, select, help),
      read: () => (select.value === '' ? undefined : schema.enum[Number(select.value)]),
    };
  }
  if (type === 'boolean') {
    const box = h('input', {
      id,
      type: 'checkbox',
      checked: schema.default === true,
      'aria-describedby': describedBy,
    });
    return { node: h('div', { class: 'control checkbox' }, box, label, help), read: () => box.checked };
  }
  if (type === 'number' || type === 'integer') {
    const input = h('input', {
      id,
      type: 'number',
      step: type === 'integer' ? '1' : 'any',
      min: schema.minimum,
      max: schema.maximum,
      value: schema.default,
      'aria-describedby': describedBy,
    });
    return {
      node: h('div', { class: 'control' }, label, input, help),
      read() {
        if (input.value === '') {
          if (required) throw new Error(`${name} is required.`);
          return undefined;
        }
        return Number(input.value);
      },
    };
  }
  if (type === 'string') {
    const long = (schema.maxLength ?? 1000) > 200 && !schema.format;
    const input = long
      ? h('textarea', { id, rows: '3', 'aria-describedby': describedBy })
      : h('input', { id, type: 'text', 'aria-describedby': describedBy });
    if (schema.default !== undefined) input.value = String(schema.default);
    return {
      node: h('div', { class: 'control' }, label, input, help),
      read() {
        if (input.value === '') {
          if (required) throw new Error(`${name} is required.`);
          return undefined;
        }
        return input.value;
      },
    };
  }
  // Anything else (no type, oneOf, free objects): JSON.
  const area = h('textarea', {
    id,
    rows: '3',
    class: 'code',
    placeholder: 'JSON',
    'aria-describedby': describedBy,
  });
  return {
    node: h('div', { class: 'control' }, label, area, help),
    read() {
      if (area.value.trim() === '') {
        if (required) throw new Error(`${name} is required.`);
        return undefined;
      }
      try {
        return JSON.parse(area.value);
      } catch {
        throw new Error(`${name} is not valid JSON.`);
      }
    },
  };
}

/**
 * The whole input form of an operation: the generated fields, and a JSON editor as the fallback (it starts from
 * what the fields hold). `read()` answers the input object.
 */
export function inputForm(schema) {
  const hasFields = schema && typeof schema === 'object' && Object.keys(schema).length > 0;
  const root = hasFields ? schemaControl(schema, 'Input', true) : undefined;
  const fields = h(
    'div',
    { class: 'generated' },
    root ? root.node : h('p', { class: 'hint' }, 'This operation describes no input; edit it as JSON.'),
  );
  const editor = h('textarea', {
    class: 'code',
    rows: '8',
    'aria-label': 'Input as JSON',
    hidden: Boolean(root),
  });
  const toggle = h('input', { type: 'checkbox', id: nextId(), checked: !root });
  const toggleLabel = h('label', { class: 'checkbox', for: toggle.id }, toggle, ' Edit the input as JSON');
  toggle.addEventListener('change', () => {
    if (toggle.checked) {
      try {
        editor.value = JSON.stringify(root ? (root.read() ?? {}) : {}, null, 2);
      } catch {
        editor.value = '{}';
      }
    }
    editor.hidden = !toggle.checked;
    fields.hidden = toggle.checked;
  });
  if (!root) editor.value = '{}';
  return {
    node: h('div', { class: 'input-form' }, fields, toggleLabel, editor),
    read() {
      if (toggle.checked) {
        try {
          return JSON.parse(editor.value || '{}');
        } catch (error) {
          throw new Error(`The input is not valid JSON: ${error.message}`);
        }
      }
      return root ? (root.read() ?? {}) : {};
    },
  };
}

/** A sample input from a schema (defaults, first enum values, placeholders), for copyable calls. */
export function sampleInput(schema) {
  const type = typeOf(schema);
  if (schema?.default !== undefined) return schema.default;
  if (Array.isArray(schema?.examples) && schema.examples.length) return schema.examples[0];
  if (type === 'enum') return schema.enum[0];
  if (type === 'object') {
    const out = {};
    const required = new Set(schema.required ?? Object.keys(schema.properties ?? {}));
    for (const [name, property] of Object.entries(schema.properties ?? {}))
      if (required.has(name)) out[name] = sampleInput(property);
    return out;
  }
  if (type === 'array') return [sampleInput(schema.items ?? {})];
  if (type === 'number' || type === 'integer') return 0;
  if (type === 'boolean') return false;
  return '…';
}
