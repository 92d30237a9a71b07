import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { ScrollablePre } from '../ui/ScrollablePre';

/**
 * Markdown without raw HTML: react-markdown never renders HTML found in the text, so nothing a
 * model, a database or an imported notebook says can inject markup or script. GitHub-flavoured
 * extensions (tables, task lists, strikethrough) come from remark-gfm, which adds no HTML path.
 */
export function Markdown({ text }: { text: string }) {
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
