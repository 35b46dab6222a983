// A secret the API hands out once (a new or rotated API key): shown here with a copy button and
// the warning that it cannot be seen again. It lives only in the owner's component state while
// this is on screen: never in storage, the URL or a log; closing forgets it.
import { useState } from 'preact/hooks';

export function SecretOnce(props: { secret: string; label: string }) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <div class="secret-once">
      <p class="notice" data-testid="secret-warning">
        <strong>Copy this key now: you will not see it again.</strong> The console does not keep it, and the
        API stores only its hash.
      </p>
      <div class="inline-group">
        <input
          type="text"
          readonly
          value={props.secret}
          aria-label={props.label}
          data-testid="secret-once"
          autocomplete="off"
          spellcheck={false}
          onFocus={(e) => (e.target as HTMLInputElement).select()}
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <small role="status">
        {copied === 'yes'
          ? 'Copied to the clipboard.'
          : copied === 'failed'
            ? 'The browser refused the clipboard: select the key and copy it by hand.'
            : ''}
      </small>
    </div>
  );
}
