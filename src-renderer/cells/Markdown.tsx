import ReactMarkdown from 'react-markdown';

/**
 * Markdown without raw HTML: react-markdown never renders HTML found in the text, so nothing a
 * model, a database or an imported notebook says can inject markup or script.
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        skipHtml
        components={{
          a: ({ href, children }) => (
            <a href={href} target="_blank" rel="noreferrer noopener">
              {children}
            </a>
          ),
          img: ({ alt }) => <span className="image-placeholder">[image: {alt}]</span>,
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
