import { describe, expect, it } from 'vitest';

import { emptyForm, formFromUrl, passwordFromForm, targetFromForm, trinoUsesTls, withTrinoTls } from '../../../src-renderer/connections/connection-form';
import { connectionTargetSchema } from '../../../src-main/contract/connections';

describe('the Trino connection form', () => {
  it('builds trino://USER@HOST:PORT/CATALOG/SCHEMA, a target the contract accepts', () => {
    const form = { ...emptyForm('trino'), host: 'lake.example', user: 'ann', database: 'hive/sales' };
    const target = targetFromForm(form);
    expect(target).toEqual({ engine: 'trino', url: 'trino://ann@lake.example:8080/hive/sales' });
    expect(connectionTargetSchema.safeParse(target).success).toBe(true);
  });

  it('asks for the user and the catalog Trino needs', () => {
    expect(() => targetFromForm({ ...emptyForm('trino'), host: 'h', database: 'hive' })).toThrow('The user is required');
    expect(() => targetFromForm({ ...emptyForm('trino'), host: 'h', user: 'ann' })).toThrow('The catalog is required');
  });

  it('takes a pasted URL apart, the password into its own field and out of the URL', () => {
    const form = formFromUrl(emptyForm('trino'), 'trino://ann:s%40cret@lake.example:8443/hive/sales?ssl=true');
    expect(form).toMatchObject({ host: 'lake.example', port: '8443', user: 'ann', database: 'hive/sales', password: 's@cret', parameters: '?ssl=true' });
    expect(targetFromForm(form)).toEqual({ engine: 'trino', url: 'trino://ann@lake.example:8443/hive/sales?ssl=true' });
    expect(passwordFromForm(form)).toBe('s@cret');
  });

  it('turns HTTPS on and off as ssl=true among the URL parameters, keeping the others', () => {
    const pasted = formFromUrl(emptyForm('trino'), 'trino://ann@lake.example:8443/hive?ssl=true&x=1');
    expect(trinoUsesTls(pasted)).toBe(true);
    const plain = withTrinoTls(pasted, false);
    expect(trinoUsesTls(plain)).toBe(false);
    expect(targetFromForm(plain)).toEqual({ engine: 'trino', url: 'trino://ann@lake.example:8443/hive?x=1' });
    expect(targetFromForm(withTrinoTls(emptyFormFor('h'), true))).toEqual({ engine: 'trino', url: 'trino://ann@h:8080/hive?ssl=true' });
    expect(withTrinoTls(withTrinoTls(emptyFormFor('h'), true), false).parameters).toBe('');
  });
});

function emptyFormFor(host: string): ReturnType<typeof emptyForm> {
  return { ...emptyForm('trino'), host, user: 'ann', database: 'hive' };
}
