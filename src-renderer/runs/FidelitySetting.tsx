import { useState } from 'react';
import { resolveFidelity, type Fidelity, type TechniqueInfo } from '../../src-main/contract';

/** What a change of the fidelity setting reports: the fidelity, and the temperature typed (undefined: blank; invalid: out of range, so nothing may start). */
export interface FidelityChoice {
  fidelity: Fidelity;
  temperature: number | undefined;
  temperatureValid: boolean;
}

const summaries: Record<Fidelity, string> = {
  paper: "The papers' settings: temperature 0, each paper's token and step limits, the database's own messages, no simulate or what-if tool, each paper's own fallback.",
  product: "The workbench's labelled extensions on (listed below, each with what the paper did instead).",
};

/**
 * The run-level fidelity (contract/fidelity.ts) as the run composer and the Benchmarks form
 * show it: paper or product, an optional temperature, and every extension that concerns the
 * chosen techniques, on or off at this fidelity, with what the paper did instead as its title.
 * The extensions are each technique's own as `runs/techniques` carries them from its definition,
 * so a new technique's extensions show here without a change to this file.
 */
export function FidelitySetting({ techniques, fidelity, onChange }: { techniques: readonly TechniqueInfo[]; fidelity: Fidelity; onChange(choice: FidelityChoice): void }) {
  const [temperatureText, setTemperatureText] = useState('');
  const temperature = readTemperature(temperatureText);
  const report = (next: Fidelity, text: string): void => {
    const read = readTemperature(text);
    onChange({ fidelity: next, temperature: read === 'invalid' ? undefined : read, temperatureValid: read !== 'invalid' });
  };
  const seen = new Set<string>();
  const rows = techniques.flatMap((technique) =>
    technique.fidelity.extensions.flatMap((extension) => {
      if (seen.has(extension.id)) return [];
      seen.add(extension.id);
      const on = resolveFidelity(technique.fidelity, { fidelity }).extensions.find((entry) => entry.id === extension.id)?.on ?? false;
      return [{ extension, on }];
    }),
  );
  return (
    <div className="inline-setting fidelity-setting" data-testid="fidelity-setting">
      <label>
        Fidelity
        <select aria-label="Fidelity" value={fidelity} onChange={(event) => report(event.target.value as Fidelity, temperatureText)}>
          <option value="product">Product (labelled extensions on)</option>
          <option value="paper">Paper settings</option>
        </select>
      </label>
      <label>
        Temperature
        <input
          aria-label="Temperature"
          inputMode="decimal"
          size={5}
          placeholder={fidelity === 'paper' ? '0' : 'model'}
          value={temperatureText}
          aria-invalid={temperature === 'invalid'}
          onChange={(event) => {
            setTemperatureText(event.target.value);
            report(fidelity, event.target.value);
          }}
        />
      </label>
      {temperature === 'invalid' && (
        <span className="form-error" role="alert">
          Temperature: a number from 0 to 2, or blank
        </span>
      )}
      <span className="muted" data-testid="fidelity-note">
        {fidelity === 'paper' ? 'Paper' : 'Product'}: {summaries[fidelity]}
      </span>
      {rows.length > 0 && (
        <ul className="fidelity-extensions muted" data-testid="fidelity-extensions">
          {rows.map(({ extension, on }) => (
            <li key={extension.id} data-extension={extension.id} data-on={on} title={`The paper: ${extension.paperInstead}`}>
              [ext] {extension.label}: {on ? 'on' : 'off'}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The typed temperature: undefined when blank, 'invalid' when not a number from 0 to 2. */
function readTemperature(text: string): number | undefined | 'invalid' {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const value = /^(\d+\.?\d*|\.\d+)$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  return Number.isFinite(value) && value >= 0 && value <= 2 ? value : 'invalid';
}
