/**
 * The analyst's sign-offs of runs in this workspace (<workspace>/sign-offs.jsonl, one JSON
 * object a line, appended at every export signed off): which run, by whom, when and under
 * which sealed head. AutoPlan trains playbooks from the signed-off runs, the sign-off taking
 * the simulator's place as the reward.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const signOffSchema = z.object({ runId: z.string(), notebookId: z.string(), name: z.string(), comment: z.string(), at: z.string(), head: z.string() });
export type RunSignOff = z.infer<typeof signOffSchema>;

export class SignOffLog {
  private readonly path: string;

  constructor(workspaceDir: string) {
    this.path = join(workspaceDir, 'sign-offs.jsonl');
  }

  record(signOff: RunSignOff): void {
    appendFileSync(this.path, `${JSON.stringify(signOffSchema.parse(signOff))}\n`);
  }

  /** Every readable sign-off, oldest first; a line that is not one (cut short by a crash) is skipped. */
  list(): RunSignOff[] {
    if (!existsSync(this.path)) return [];
    return readFileSync(this.path, 'utf8')
      .split('\n')
      .flatMap((line) => {
        if (line.trim() === '') return [];
        try {
          const parsed = signOffSchema.safeParse(JSON.parse(line));
          return parsed.success ? [parsed.data] : [];
        } catch {
          return [];
        }
      });
  }
}
