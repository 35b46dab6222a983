import { checkRegex } from './src/safe-regex.ts';
const alphabet = ['a','b','.','*','+','?','(',')','(?:','|','[ab]','[^a]','\\d','\\w','\\s','{2}','{1,3}','{2,}','1',' ','$','^'];
const inputs = ['a'.repeat(1024), 'a'.repeat(1023) + '!', 'ab'.repeat(511) + '!', '1'.repeat(1023) + '!', 'a1 '.repeat(341) + '!', ' '.repeat(1023) + '!', 'a b'.repeat(341) + '\n'];
const started = Date.now();
let n = 0, worst = 0, worstP = '';
while (Date.now() - started < 200_000) {
  const len = 3 + Math.floor(Math.random() * 14);
  let s = ''; for (let j = 0; j < len; j++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  try { new RegExp(s, 'u'); } catch { continue; }
  if (!checkRegex(s).safe) continue;
  n++;
  for (const suffix of ['', '$', 'x']) {
    const re = new RegExp(s + suffix, 'u');
    for (const input of inputs) { const t = performance.now(); re.test(input); const d = performance.now() - t; if (d > worst) { worst = d; worstP = s + suffix; } if (d > 50) console.log(d.toFixed(0), 'ms', JSON.stringify(s + suffix), JSON.stringify(input.slice(0, 6))); }
  }
}
console.log('tested', n, 'worst', worst.toFixed(1), worstP);
