import { WorkbenchError, fileErrorReason } from '../../../contract/errors';
import { readBoundedText } from '../../../native/bounded-read';

/**
 * The playbook a `--playbook FILE` names: a version written by `dwb playbook train`
 * (vNNN.json, its `playbook` field) or any text file holding the playbook itself.
 */
export function readPlaybookFile(path: string): string {
  let text: string;
  try {
    text = readBoundedText(path);
  } catch (error) {
    throw new WorkbenchError('not-found', `cannot read --playbook ${path}: ${fileErrorReason(error)}`);
  }
  let playbook = text;
  if (path.toLowerCase().endsWith('.json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new WorkbenchError('invalid-request', `--playbook ${path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    const field = parsed !== null && typeof parsed === 'object' ? (parsed as { format?: unknown; playbook?: unknown }) : {};
    if (field.format !== 'decision-workbench/playbook-version' || typeof field.playbook !== 'string') {
      throw new WorkbenchError('invalid-request', `--playbook ${path} is not a playbook version written by dwb playbook train`);
    }
    playbook = field.playbook;
  }
  if (playbook.trim() === '') throw new WorkbenchError('invalid-request', `--playbook ${path} holds an empty playbook`);
  return playbook.trim();
}
