import path from 'node:path';

/**
 * Layer floors by resolved path. Each relative (or absolute) import is resolved against the
 * importing file, so `'../services/router'`, `'../../../src-main/services/router'` and
 * `'../contract/../services/router'` are the same import and meet the same floor. Spelling-based
 * patterns (`no-restricted-imports`) cannot see that; this rule places the *target* instead.
 *
 * It needs no file to exist: a target's floor is the folder it sits in under the process root,
 * which is what the layer table is about. Bare specifiers (packages, `node:` builtins) are left to
 * `no-restricted-imports`.
 *
 * Options (one object):
 * - projectRoot: absolute path the process roots are relative to (the folder of eslint.config.mjs);
 * - root: the process folder, e.g. 'src-main';
 * - floors: folder names, lowest floor first; a folder imports its own floor and lower ones;
 * - only: { folder: [folders] } for folders held tighter than their floor (the contract, the preload);
 * - reaches: paths outside `root` that may be imported (e.g. 'src-main/contract'); anything else
 *   outside `root` is refused with `outsideMessage`;
 * - word, table, doc: how the messages name a floor, the table and the page that explains it;
 * - apart: [{ from, to, why }] paths under `root` kept apart inside one floor: no file within
 *   `from` imports anything that resolves within `to` (a tool never sees the run it serves).
 * Files directly in `root` (the renderer's main.tsx) are the entry: above every floor.
 */

const entry = Symbol('entry');

/** The module specifier of each import form that names one: static, re-export, dynamic, type, require. */
function specifierNode(node) {
  switch (node.type) {
    case 'ImportDeclaration':
    case 'ExportAllDeclaration':
    case 'ExportNamedDeclaration':
    case 'ImportExpression':
      return node.source ?? null;
    case 'TSImportType':
      return node.argument?.type === 'TSLiteralType' ? node.argument.literal : null;
    case 'TSExternalModuleReference':
      return node.expression;
    case 'CallExpression':
      return node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments.length === 1 ? node.arguments[0] : null;
    default:
      return null;
  }
}

function literalText(node) {
  if (!node) return null;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
  return null;
}

/** Whether `target` is `base` or inside it. */
function isWithin(target, base) {
  const relative = path.relative(base, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

export const layerFloors = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports go to the importing folder’s own floor or a lower one, judged by resolved path.' },
    schema: [
      {
        type: 'object',
        properties: {
          projectRoot: { type: 'string' },
          root: { type: 'string' },
          floors: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
          only: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
          reaches: { type: 'array', items: { type: 'string' } },
          outsideMessage: { type: 'string' },
          word: { type: 'string' },
          table: { type: 'string' },
          doc: { type: 'string' },
          apart: {
            type: 'array',
            items: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' }, why: { type: 'string' } }, required: ['from', 'to', 'why'], additionalProperties: false },
          },
        },
        required: ['projectRoot', 'root', 'floors', 'outsideMessage', 'word', 'table', 'doc'],
        additionalProperties: false,
      },
    ],
    messages: {
      higher: '{{from}} is on {{word}} {{fromFloor}} of {{root}}; it imports only its own {{word}} and lower ones, and {{to}} is on {{word}} {{toFloor}} ({{table}} in eslint.config.mjs, {{doc}}).',
      narrow: '{{from}} imports only {{allowed}} of {{root}}, not {{to}} ({{table}} in eslint.config.mjs, {{doc}}).',
      outside: '{{outsideMessage}} This import resolves to {{target}}.',
      apart: '{{from}} never imports {{to}}: {{why}} (apart in eslint.config.mjs).',
      unplaced: '{{from}} has no {{word}} in {{table}} (eslint.config.mjs): give the folder one, and a line in {{doc}}.',
    },
  },
  create(context) {
    const options = context.options[0];
    const root = path.resolve(options.projectRoot, options.root);
    const filename = context.physicalFilename ?? context.filename;
    if (!isWithin(filename, root)) return {};

    const floorOf = new Map(options.floors.flatMap((folders, index) => folders.map((folder) => [folder, index])));
    const reaches = (options.reaches ?? []).map((reach) => path.resolve(options.projectRoot, reach));
    const only = options.only ?? {};
    const common = { root: options.root, word: options.word, table: options.table, doc: options.doc };

    /** The folder a path sits in under the process root, or `entry` for the root's own files. */
    const folderOf = (absolute) => {
      const segments = path.relative(root, absolute).split(path.sep);
      if (segments.length > 1) return segments[0];
      // `../whatif` names a folder (its index); a bare file name at the root is the entry.
      return floorOf.has(segments[0]) ? segments[0] : entry;
    };
    const floorNumber = (folder) => (folder === entry ? options.floors.length : floorOf.get(folder));
    const label = (folder, absolute) => (folder === entry ? `${options.root}/${path.basename(absolute)} (the entry)` : `${folder}/`);

    // A path kept apart is compared without its extension: `../run-context` and `../run-context.ts` are one module.
    const withoutExtension = (absolute) => absolute.replace(/\.(?:[cm]?[jt]sx?)$/, '');
    const apart = (options.apart ?? []).filter((rule) => isWithin(filename, path.resolve(root, rule.from)));

    const from = folderOf(filename);
    if (from !== entry && !floorOf.has(from)) {
      return {
        Program(node) {
          context.report({ node, messageId: 'unplaced', data: { ...common, from: `${options.root}/${from}/` } });
        },
      };
    }

    const check = (node) => {
      const source = specifierNode(node);
      const spelled = literalText(source);
      if (spelled === null) return;
      if (!spelled.startsWith('.') && !path.isAbsolute(spelled)) return;
      const target = path.resolve(path.dirname(filename), spelled.replace(/[?#].*$/, ''));
      const shown = path.relative(options.projectRoot, target).split(path.sep).join('/');

      if (!isWithin(target, root)) {
        if (reaches.some((reach) => isWithin(target, reach))) return;
        context.report({ node: source, messageId: 'outside', data: { outsideMessage: options.outsideMessage, target: shown } });
        return;
      }
      const kept = apart.find((rule) => isWithin(withoutExtension(target), path.resolve(root, rule.to)));
      if (kept) {
        context.report({ node: source, messageId: 'apart', data: { from: `${options.root}/${kept.from}/`, to: `${options.root}/${kept.to}`, why: kept.why } });
        return;
      }
      const to = folderOf(target);
      if (to === from) return;
      if (from !== entry && only[from]) {
        if (!only[from].includes(to)) {
          const allowed = only[from].length ? only[from].map((folder) => `${folder}/`).join(', ') : 'itself';
          context.report({ node: source, messageId: 'narrow', data: { ...common, from: label(from, filename), allowed, to: label(to, target) } });
        }
        return;
      }
      // A target folder missing from the table is reported on its own files (`unplaced`).
      if (to !== entry && !floorOf.has(to)) return;
      if (floorNumber(to) > floorNumber(from)) {
        context.report({
          node: source,
          messageId: 'higher',
          data: { ...common, from: label(from, filename), fromFloor: String(floorNumber(from)), to: label(to, target), toFloor: to === entry ? 'top' : String(floorNumber(to)) },
        });
      }
    };

    return {
      ImportDeclaration: check,
      ExportAllDeclaration: check,
      ExportNamedDeclaration: check,
      ImportExpression: check,
      TSImportType: check,
      TSExternalModuleReference: check,
      CallExpression: check,
    };
  },
};

export default { rules: { 'layer-floors': layerFloors } };
