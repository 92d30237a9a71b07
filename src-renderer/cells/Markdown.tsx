import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { isExternalLink, withinMarkdownBudget } from '../../src-main/contract';
import { ScrollablePre } from '../ui/ScrollablePre';

const safeUrl = (url: string): string => (isExternalLink(url) ? url : '');

/**
 * Markdown without raw HTML: HTML found in the text is shown as the text it is (react-markdown
 * turns it into text unless told to skip it, and the exports do the same), so nothing a model, a
 * database or an imported notebook says can inject markup or script, and nothing written
 * vanishes. A link leads only to http(s) or mail and shows its address on hover; any other link
 * is its text alone. GitHub-flavoured extensions (tables, task lists, strikethrough) come from
 * remark-gfm, which adds no HTML path.
 */
export function Markdown({ text }: { text: string }) {
  // Parsing or rendering would take seconds or run out of stack (the budget says why): the text as it is instead.
  if (!withinMarkdownBudget(text)) {
    return (
      <div className="markdown" data-testid="markdown-as-text">
        <p className="muted">Shown as plain text: it holds more emphasis, brackets or nesting than the notebook renders as Markdown.</p>
        <ScrollablePre label="Text">{text}</ScrollablePre>
      </div>
    );
  }
  return (
    <div className="markdown">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        urlTransform={safeUrl}
        components={{
          a: ({ href, children }) =>
            href ? (
              <a href={href} title={href} target="_blank" rel="noreferrer noopener">
                {children}
              </a>
            ) : (
              <span data-testid="markdown-unlinked">{children}</span>
            ),
          pre: ({ children }) => <ScrollablePre label="Code block">{children}</ScrollablePre>,
          img: ({ alt }) => <span className="image-placeholder">[image: {alt}]</span>,
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
