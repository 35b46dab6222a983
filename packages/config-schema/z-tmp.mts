import { checkRegex } from './src/safe-regex.ts';
const alphabet = ['a','b','.','*','+','?','(',')','(?:','|','[ab]','[^a]','\\d','\\w','\\s','{2}','{1,3}','{2,}','1',' ','$','^'];
const inputs = ['a'.repeat(3000) + '!', 'ab'.repeat(1500) + '!', '1'.repeat(3000) + '!', 'a1 '.repeat(1000) + '!', ' '.repeat(3000) + '!'];
let worst = 0, worstP = '';
for (let i = 0; i < 60000; i++) {
  const len = 3 + Math.floor(Math.random() * 10);
  let s = ''; for (let j = 0; j < len; j++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  try { new RegExp(s, 'u'); } catch { continue; }
  if (!checkRegex(s).safe) continue;
  const re = new RegExp(s + '$', 'u');
  for (const input of inputs) { const t = performance.now(); re.test(input); const d = performance.now() - t; if (d > worst) { worst = d; worstP = s; } }
}
console.log(worst.toFixed(1), 'ms', worstP);
