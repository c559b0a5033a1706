/**
 * The part of markdown-it the tests use (it ships no types; it comes with typedoc, a devDependency):
 * a CommonMark renderer with GFM tables, which printable-text.test.ts renders the job summary with.
 */
declare module 'markdown-it' {
  interface MarkdownItOptions {
    /** Raw HTML in the source passes into the output. */
    readonly html?: boolean;
    /** Bare URLs become links. */
    readonly linkify?: boolean;
  }
  export default class MarkdownIt {
    constructor(options?: MarkdownItOptions);
    render(markdown: string): string;
  }
}
