import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { withinMarkdownBudget } from '../../src-main/contract';
import { ScrollablePre } from '../ui/ScrollablePre';

/**
 * Markdown without raw HTML: react-markdown never renders HTML found in the text, so nothing a
 * model, a database or an imported notebook says can inject markup or script. GitHub-flavoured
 * extensions (tables, task lists, strikethrough) come from remark-gfm, which adds no HTML path.
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
        skipHtml
        remarkPlugins={[remarkGfm]}
        components={{
          a: ({ href, children }) => (
            <a href={href} target="_blank" rel="noreferrer noopener">
              {children}
            </a>
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
