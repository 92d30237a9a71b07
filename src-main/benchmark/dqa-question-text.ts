import type { BuildingQuestion, LocatingQuestion } from '../dqa/dataset';

/**
 * The question as the model is asked it: the DQA text without its decorative frame
 * (`=====`, `<Question>`), with the Locating goal, which the dataset keeps in its own field.
 */
export function dqaQuestionText(question: LocatingQuestion | BuildingQuestion): string {
  const body = question.question
    .split('\n')
    .filter((line) => !/^\s*=+\s*$/.test(line) && !/^\s*<\/?question>\s*$/i.test(line))
    .join('\n')
    .trim();
  return 'goal' in question && question.goal.trim() !== '' && !body.includes(question.goal.trim()) ? `${body}\n\n${question.goal.trim()}` : body;
}
