import { describe, expect, it } from 'vitest';
import { dqaRoot, readBuildingQuestions, readLocatingQuestions } from '../../../src-main/dqa/dataset';
import { dqaQuestionText } from '../../../src-main/benchmark/dqa-question-text';
import { parametersFromQuestion } from '../../../src-main/simulators/question-parameters';

const locating = readLocatingQuestions(dqaRoot());
const building = readBuildingQuestions(dqaRoot());

describe('reading the simulator parameters from a question', () => {
  it('reads the country and home node of every Locating development question, as the model is asked it', () => {
    expect(locating.length).toBe(81);
    for (const question of locating) {
      expect({ id: question.id, ...parametersFromQuestion(dqaQuestionText(question), 'locating') }).toEqual({ id: question.id, country: question.country, home: question.home });
      // The raw text with its frame reads the same.
      expect(parametersFromQuestion(question.question, 'locating')).toEqual({ country: question.country, home: question.home });
    }
  });

  it('reads the goods of every Building development question', () => {
    expect(building.length).toBe(36);
    for (const question of building) {
      expect({ id: question.id, ...parametersFromQuestion(dqaQuestionText(question), 'building') }).toEqual({ id: question.id, goods: question.goods });
    }
  });

  it.each([
    ['We are the country named "SWE" and our home node is baltic_sea. Where should the merchant go?', { country: 'SWE', home: 'baltic_sea' }],
    ['As the ruler of DAN (home trade node: lubeck), which node should get our merchant?', { country: 'DAN', home: 'lubeck' }],
    ["Country: 'NOR'. Home node = “lubeck”. Where should I allocate my merchant?", { country: 'NOR', home: 'lubeck' }],
    ['Our home node is "baltic_sea". Where should I place my merchant?', { home: 'baltic_sea' }],
    ['Where should I place my merchant to make the most money?', {}],
    // As an analyst types it, without the template's phrases.
    ['Where should SWE place its merchant to maximise profit at baltic_sea?', { country: 'SWE', home: 'baltic_sea' }],
    ["SWE's merchant: which node makes the most profit in lubeck?", { country: 'SWE', home: 'lubeck' }],
    ['Where should we send the merchant to maximise our profit at home?', {}],
    ['Which country is the richest? The home node is the best one.', {}],
  ])('Locating, typed: %j', (question, expected) => {
    expect(parametersFromQuestion(question, 'locating')).toEqual(expected);
  });

  it.each([
    ['Which building should grow by 5 levels to lower the price of iron the most?', { goods: 'iron' }],
    ['Goods: "luxury furniture". Which building id should we raise?', { goods: 'luxury furniture' }],
    ['Which building should we increase by five levels?', {}],
    ['Lower the market price of the goods we sell most', {}],
  ])('Building, typed: %j', (question, expected) => {
    expect(parametersFromQuestion(question, 'building')).toEqual(expected);
  });

  it('reads only the parameters of the scenario asked about', () => {
    expect(parametersFromQuestion('The country named "SWE" wants the price of iron to fall', 'building')).toEqual({ goods: 'iron' });
  });
});
