import fc from "fast-check";

/**
 * fast-check generators of JSON text fragments: poison that every backend must refuse (NUL,
 * unpaired surrogates, numbers past double range, nesting past 64, own "__proto__" keys) hidden at
 * random places, and clean values of the same shapes that every backend must treat alike.
 */

export interface Fragment {
  /** JSON text that goes where `$` is in a template. */
  json: string;
  /** Whether the fragment breaks an input rule (and must be refused wherever it is put). */
  poison: boolean;
  /** Whether it is a JSON string (fits string fields), rather than a number or a container. */
  isString: boolean;
}

const clean = fc.string({ unit: "grapheme", maxLength: 12 });
const key = fc.oneof(
  fc.constantFrom("a", "plan", "constructor", "toString", "valueOf", "hasOwnProperty", "__defineGetter__"),
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 6 }),
);

/** A string with a NUL or an unpaired surrogate somewhere in it. */
const badString = fc
  .tuple(
    clean,
    fc.constantFrom("\u0000", "\ud800", "\udbff", "\udc00", "\udfff", "\ud800\ud800", "\udc00\ud800"),
    clean,
  )
  .filter(
    ([before, bad, after]) =>
      !`${before.slice(-1)}${bad}${after.slice(0, 1)}`.match(/^[\ud800-\udbff][\udc00-\udfff]$/),
  )
  .map(([before, bad, after]) => JSON.stringify(before + bad + after));

/** A number literal outside double range, in any of JSON's spellings. */
const hugeNumber = fc
  .tuple(
    fc.constantFrom("", "-"),
    fc.integer({ min: 1, max: 9 }),
    fc.constantFrom("e", "E", "e+"),
    fc.integer({ min: 309, max: 99_999 }),
  )
  .map(([sign, digit, e, exponent]) => `${sign}${digit}${e}${exponent}`);

/** Objects and arrays mixed, `levels` deep (65 to 3,000: past the bound). */
const tooDeep = fc
  .tuple(fc.integer({ min: 65, max: 3_000 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }))
  .map(([levels, pattern]) => {
    let open = "";
    let close = "";
    for (let i = 0; i < levels; i++) {
      const array = pattern[i % pattern.length]!;
      open += array ? "[" : '{"k":';
      close = (array ? "]" : "}") + close;
    }
    return `${open}0${close}`;
  });

/** An object with an own "__proto__" key among others. */
const protoObject = fc
  .tuple(fc.dictionary(key, fc.integer(), { maxKeys: 3 }), fc.jsonValue({ maxDepth: 1 }))
  .map(([others, value]) => {
    const rest = JSON.stringify(others).slice(1, -1);
    return `{${rest}${rest ? "," : ""}"__proto__":${JSON.stringify(value)}}`;
  });

/** `fragment` wrapped in 0–3 random containers, so the poison sits at a random depth and key. */
function buried(fragment: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(
      fragment,
      fc.array(
        fc.oneof(
          key.map((k) => ({ key: k })),
          fc.constant({ key: undefined }),
        ),
        { maxLength: 3 },
      ),
    )
    .map(([inner, wraps]) =>
      wraps.reduce(
        (text, wrap) => (wrap.key === undefined ? `[1,${text}]` : `{${JSON.stringify(wrap.key)}:${text}}`),
        inner,
      ),
    );
}

export const stringFragment: fc.Arbitrary<Fragment> = fc.oneof(
  badString.map((json) => ({ json, poison: true, isString: true })),
  clean.map((text) => ({ json: JSON.stringify(text), poison: false, isString: true })),
);

/** Anything a free-form JSON field (properties, attributes, detail) could hold. */
export const freeFormFragment: fc.Arbitrary<Fragment> = fc.oneof(
  { arbitrary: stringFragment, weight: 2 },
  { arbitrary: buried(badString).map((json) => ({ json, poison: true, isString: false })), weight: 2 },
  { arbitrary: buried(hugeNumber).map((json) => ({ json, poison: true, isString: false })), weight: 2 },
  { arbitrary: buried(tooDeep).map((json) => ({ json, poison: true, isString: false })), weight: 1 },
  { arbitrary: buried(protoObject).map((json) => ({ json, poison: true, isString: false })), weight: 2 },
  {
    arbitrary: fc
      .jsonValue({ maxDepth: 3 })
      .map((v) => ({ json: JSON.stringify(v), poison: false, isString: typeof v === "string" }))
      .filter((f) => !f.json.includes('"__proto__"')),
    weight: 2,
  },
);

/** A path segment: NUL or an unpaired surrogate percent-encoded (as UTF-8 bytes, or as CESU). */
export const impossibleSegment = fc
  .tuple(
    fc.string({ unit: "grapheme-ascii", maxLength: 6 }),
    fc.constantFrom("%00", "%ED%A0%80", "%ED%BF%BF", "%C0%80", "%F4%90%80%80"),
    fc.string({ unit: "grapheme-ascii", maxLength: 6 }),
  )
  .map(([a, bad, b]) => `${encodeURIComponent(a)}${bad}${encodeURIComponent(b)}`);

/** Query parameter names that are prototype members, with any value. */
export const prototypeQuery = fc
  .tuple(
    fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "__lookupGetter__"),
    fc.string({ maxLength: 6 }),
  )
  .map(([name, value]) => `${name}=${encodeURIComponent(value)}`);
