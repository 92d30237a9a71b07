import { describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-main/contract/errors';
import { registeredTechniques, registerTechnique, techniqueNamed } from '../../../src-main/engine/techniques/registry';
import { techniqueFidelity } from '../../../src-main/engine/techniques/technique-extensions';
import { extensionOn, fidelityLine, resolveFidelity, resolvedFidelitySchema } from '../../../src-main/contract/fidelity';
import { fidelityFromCli } from '../../../src-main/cli/fidelity-options';

/** What a technique's definition says its fidelity depends on (its extensions, its paper's settings). */
const of = (technique: string) => techniqueFidelity(techniqueNamed(technique));
const on = (resolved: ReturnType<typeof resolveFidelity>): Record<string, boolean> => Object.fromEntries(resolved.extensions.map((extension) => [extension.id, extension.on]));

describe('a run’s fidelity to its paper', () => {
  it('paper: temperature 0, the database’s own messages, no simulate or what-if tool for the PlanRAG family', () => {
    for (const technique of ['planrag', 'iterrag', 'singlerag', 'planrag-norp']) {
      const resolved = resolveFidelity(of(technique), { fidelity: 'paper' });
      expect(resolved.temperature, technique).toBe(0);
      expect(resolved.temperatureFrom).toBe('paper');
      expect(resolved.callMaxTokens).toEqual({});
      expect(on(resolved), technique).toEqual({ 'query-feedback': false, 'simulate-tool': false, 'whatif-tool': false });
    }
  });

  it('product: every labelled extension on, the temperature left to the technique or the model settings', () => {
    const resolved = resolveFidelity(of('planrag'), { fidelity: 'product' });
    expect(resolved.temperature).toBeNull();
    expect(resolved.temperatureFrom).toBe('technique-or-settings');
    expect(on(resolved)).toEqual({ 'query-feedback': true, 'simulate-tool': true, 'whatif-tool': true });
  });

  it('Pearl at paper fidelity: the paper’s token limits per call, steps in order, one query a step, the zero-shot fallback', () => {
    // The limits are Pearl's own (its definition's paperSettings.callTokens), applied at paper fidelity only.
    const paper = resolveFidelity(of('pearl'), { fidelity: 'paper' });
    expect(paper.callMaxTokens).toEqual({ plan: 256, step: 512, mapping: 512 });
    expect(on(paper)).toEqual({ 'query-feedback': false, 'pearl-query-retry': false, 'pearl-parallel-steps': false, 'pearl-planrag-fallback': false });
    const product = resolveFidelity(of('pearl'), { fidelity: 'product' });
    expect(product.callMaxTokens).toEqual({});
    expect(on(product)).toEqual({ 'query-feedback': true, 'pearl-query-retry': true, 'pearl-parallel-steps': true, 'pearl-planrag-fallback': true });
  });

  it('keeps what the technique’s own paper did: AutoPlan’s augmented feedback; DeLLMa’s per-option factor stays on and is named', () => {
    expect(on(resolveFidelity(of('autoplan'), { fidelity: 'paper' }))['query-feedback']).toBe(true);
    expect(on(resolveFidelity(of('dellma'), { fidelity: 'paper' }))['dellma-option-factors']).toBe(true);
    expect(resolveFidelity(of('dellma'), { fidelity: 'paper' }).extensions.find((extension) => extension.id === 'dellma-option-factors')?.label).toMatch(/factor per option/);
  });

  it('an explicit temperature wins at either fidelity and says it came from the option', () => {
    expect(resolveFidelity(of('planrag'), { fidelity: 'paper', temperature: 0.7 })).toMatchObject({ temperature: 0.7, temperatureFrom: 'option' });
    expect(resolveFidelity(of('pearl'), { fidelity: 'product', temperature: 0 })).toMatchObject({ temperature: 0, temperatureFrom: 'option' });
  });

  it('an extension the run cannot have is recorded off whatever the fidelity', () => {
    expect(on(resolveFidelity(of('planrag'), { fidelity: 'product' }, ['simulate-tool']))).toEqual({ 'query-feedback': true, 'simulate-tool': false, 'whatif-tool': true });
  });

  it('records only the extensions that concern the technique, each with a label and what the paper did instead', () => {
    expect(of('plan-dag').extensions.map((extension) => extension.id)).toEqual(['query-feedback']);
    for (const extension of registeredTechniques().flatMap((technique) => of(technique.id).extensions)) {
      expect(extension.label.length, extension.id).toBeGreaterThan(0);
      expect(extension.paperInstead.length, extension.id).toBeGreaterThan(0);
    }
    expect(resolvedFidelitySchema.parse(resolveFidelity(of('pearl'), { fidelity: 'paper' }))).toEqual(resolveFidelity(of('pearl'), { fidelity: 'paper' }));
  });

  it('switches single extensions against the fidelity’s default, still off where the run cannot have them', () => {
    expect(on(resolveFidelity(of('planrag'), { fidelity: 'paper', extensions: { 'query-feedback': true } }))).toEqual({ 'query-feedback': true, 'simulate-tool': false, 'whatif-tool': false });
    expect(on(resolveFidelity(of('dellma'), { fidelity: 'product', extensions: { 'dellma-option-factors': false } }))['dellma-option-factors']).toBe(false);
    expect(on(resolveFidelity(of('planrag'), { fidelity: 'paper', extensions: { 'simulate-tool': true } }, ['simulate-tool']))['simulate-tool']).toBe(false);
  });

  it('reads an extension off the record, and a run without a record as the product', () => {
    const paper = resolveFidelity(of('planrag'), { fidelity: 'paper' });
    expect(extensionOn(paper, 'query-feedback')).toBe(false);
    expect(extensionOn(paper, 'pearl-query-retry')).toBe(false);
    expect(extensionOn(undefined, 'query-feedback')).toBe(true);
  });

  it('refuses to register a technique whose own extension takes a shared id, repeats one, or names a shared one there is none of', () => {
    const extension = { id: 'query-feedback', label: 'x', adds: 'x', paperInstead: 'x', paper: false, product: true };
    const base = { id: 'ext-probe', label: 'Probe', summary: 's', method: 'm', structuredReplies: [], reviews: [], run: () => Promise.reject(new Error('not run')) };
    expect(() => registerTechnique({ ...base, extensions: [extension] })).toThrow('The extension query-feedback of ext-probe has the id of a shared extension');
    expect(() => registerTechnique({ ...base, extensions: [{ ...extension, id: 'probe-x' }, { ...extension, id: 'probe-x' }] })).toThrow('The extension probe-x of ext-probe is declared twice');
    expect(() => registerTechnique({ ...base, sharedExtensions: ['louder'] })).toThrow('ext-probe names a shared extension "louder" there is none of');
    expect(registeredTechniques().map((technique) => technique.id)).not.toContain('ext-probe');
  });

  it('says in one line which settings apply', () => {
    expect(fidelityLine(resolveFidelity(of('pearl'), { fidelity: 'paper' }))).toBe('fidelity: paper (temperature 0; tokens per call: plan 256, step 512, mapping 512; extensions on: none)');
    expect(fidelityLine(resolveFidelity(of('planrag'), { fidelity: 'product' }))).toBe(
      "fidelity: product (the technique's or the model settings' temperature; extensions on: Richer database feedback; Simulate tool offered; What-if tool offered)",
    );
  });
});

describe('--fidelity and --temperature', () => {
  it('default to the command’s fidelity and take a temperature from 0 to 2', () => {
    expect(fidelityFromCli({}, 'paper')).toEqual({ fidelity: 'paper' });
    expect(fidelityFromCli({ fidelity: 'product', temperature: '0.3' }, 'paper')).toEqual({ fidelity: 'product', temperature: 0.3 });
  });

  it('--extension ID=on|off switches one extension of the run’s technique', () => {
    expect(fidelityFromCli({ extension: ['query-feedback=on', 'pearl-planrag-fallback=off'] }, 'paper', 'pearl')).toEqual({ fidelity: 'paper', extensions: { 'query-feedback': true, 'pearl-planrag-fallback': false } });
  });

  it('refuse anything else with a specific error', () => {
    const refusal = (values: { fidelity?: string; temperature?: string }): WorkbenchError => {
      try {
        fidelityFromCli(values, 'product');
      } catch (error) {
        return error as WorkbenchError;
      }
      throw new Error('not refused');
    };
    expect(refusal({ fidelity: 'exact' })).toMatchObject({ code: 'invalid-request', message: '--fidelity must be paper or product, got "exact"' });
    expect(refusal({ temperature: '2.5' })).toMatchObject({ code: 'invalid-request', message: '--temperature takes a number from 0 to 2, got "2.5"' });
    expect(refusal({ temperature: 'hot' })).toMatchObject({ code: 'invalid-request', message: '--temperature takes a number from 0 to 2, got "hot"' });
    const switchRefusal = (extension: string[], technique?: string): WorkbenchError => {
      try {
        fidelityFromCli({ extension }, 'paper', technique);
      } catch (error) {
        return error as WorkbenchError;
      }
      throw new Error('not refused');
    };
    expect(switchRefusal(['query-feedback'], 'planrag')).toMatchObject({ code: 'invalid-request', message: '--extension takes ID=on or ID=off (e.g. query-feedback=on), got "query-feedback"' });
    expect(switchRefusal(['louder=on'], 'planrag').message).toMatch(/^--extension: No extension "louder": the extensions are query-feedback, simulate-tool, /);
    expect(switchRefusal(['pearl-query-retry=on'], 'planrag')).toMatchObject({ code: 'invalid-request', message: '--extension: The extension pearl-query-retry is for pearl, not planrag' });
    expect(switchRefusal(['query-feedback=on'])).toMatchObject({ code: 'invalid-request', message: '--extension switches an extension of a decision technique; this command runs none' });
  });
});
