import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv-draft-04';

/**
 * A validator for the nbformat 4.5 JSON schema as the `nbformat` package ships it (see
 * fixtures/nbformat/README.md): the list of problems, empty when the notebook is valid.
 */
export function nbformatValidator(): (notebook: unknown) => string[] {
  const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'nbformat', 'nbformat.v4.5.schema.json'), 'utf8')) as object;
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  return (notebook) => (validate(notebook) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`));
}
