import { describe, expect, test } from 'vitest';
import { configPathSegments, fieldOfParam, locatePath, parseEditorText } from './configs-param.js';

const TEXT = `{
  "strategy": { "mode": "fallback" },
  "targets": [
    { "provider": "@openai-prod" },
    {
      "provider": "@missing",
      "weight": 2
    }
  ],
  "x-y": { "a": 1 }
}`;

describe('an API error param on the config form', () => {
  test('names the editor, a field, or nothing', () => {
    expect(fieldOfParam('config.targets[1].provider')).toBe('config');
    expect(fieldOfParam('config')).toBe('config');
    expect(fieldOfParam('body.config')).toBe('config');
    expect(fieldOfParam('config[0]')).toBe('config');
    expect(fieldOfParam('body.name')).toBe('name');
    expect(fieldOfParam('body.slug')).toBe('slug');
    expect(fieldOfParam('body.workspace_id')).toBe('workspace_id');
    expect(fieldOfParam('configuration')).toBeUndefined();
    expect(fieldOfParam('path.configId')).toBeUndefined();
    expect(fieldOfParam(null)).toBeUndefined();
  });

  test('a config path parses into segments, quoted keys included', () => {
    expect(configPathSegments('config.targets[1].provider')).toEqual(['targets', 1, 'provider']);
    expect(configPathSegments('config["x-y"].a')).toEqual(['x-y', 'a']);
    expect(configPathSegments('body.config.cache')).toEqual(['cache']);
    expect(configPathSegments('config')).toEqual([]);
    expect(configPathSegments('body.name')).toBeUndefined();
  });

  test('points at the line of the named value, or of the nearest ancestor when the value is missing', () => {
    expect(locatePath(TEXT, ['targets', 1, 'provider'])).toEqual({
      line: 6,
      text: '      "provider": "@missing",',
      exact: true,
    });
    expect(locatePath(TEXT, ['targets', 0])).toMatchObject({ line: 4, exact: true });
    expect(locatePath(TEXT, ['x-y', 'a'])).toMatchObject({ line: 10, exact: true });
    // `targets[0].weight` is not in the text: the target's own line.
    expect(locatePath(TEXT, ['targets', 0, 'weight'])).toMatchObject({ line: 4, exact: false });
    expect(locatePath(TEXT, [])).toMatchObject({ line: 1, exact: true });
    expect(locatePath('', ['a'])).toBeUndefined();
  });

  test('text that is not JSON is refused with the line where it breaks', () => {
    expect(parseEditorText('{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    const broken = parseEditorText('{\n  "a": 1,\n  "b": }\n');
    expect(broken).toMatchObject({ ok: false, line: 3, text: '  "b": }' });
  });
});
