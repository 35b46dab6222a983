import { describe, expect, it } from 'vitest';
import { audioSeconds, unreadAudioFiles } from './audio-duration.js';
import { wavFile } from './audio-files.test-support.js';

describe('audioSeconds', () => {
  it("reads a WAV's duration from its header, a started second counting whole", async () => {
    expect(await audioSeconds(wavFile(62.3))).toBe(63);
    expect(await audioSeconds(wavFile(2))).toBe(2);
    expect(await audioSeconds(wavFile(0.5, 8_000))).toBe(1);
  });

  it('gives undefined for bytes that are no audio, or a cut header, and counts them', async () => {
    const before = unreadAudioFiles();
    expect(await audioSeconds(new Uint8Array(40_000))).toBeUndefined();
    expect(await audioSeconds(wavFile(3).subarray(0, 20))).toBeUndefined();
    expect(await audioSeconds(Buffer.from('not audio at all', 'utf8'))).toBeUndefined();
    expect(unreadAudioFiles() - before).toBe(3);
  });
});
