import { checkRegex } from './src/safe-regex.ts';
const alphabet = ['a','b','.','*','+','?','(',')','(?:','|','[ab]','[^a]','\\d','\\w','\\s','{2}','{1,3}','{2,}','1',' ','$','^'];
const inputs = ['a'.repeat(3000) + '!', 'ab'.repeat(1500) + '!', '1'.repeat(3000) + '!', 'a1 '.repeat(1000) + '!', ' '.repeat(3000) + '!'];
const started = Date.now();
let n = 0;
while (Date.now() - started < 120_000) {
  const len = 3 + Math.floor(Math.random() * 10);
  let s = ''; for (let j = 0; j < len; j++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  try { new RegExp(s, 'u'); } catch { continue; }
  if (!checkRegex(s).safe) continue;
  n++;
  const re = new RegExp(s + '$', 'u');
  for (const input of inputs) { const t = performance.now(); re.test(input); const d = performance.now() - t; if (d > 300) console.log(d.toFixed(0), 'ms', JSON.stringify(s), JSON.stringify(input.slice(0, 6))); }
}
console.log('tested', n);
