import MarkdownIt from 'markdown-it';
import { Html } from './html-escape';

/**
 * Markdown (a rationale, an analyst's note) as HTML that cannot carry markup of its own:
 * raw HTML in the text is escaped (`html: false`), links keep only http(s) and mailto targets,
 * and images become their alt text, because a report must open offline with no external asset.
 */
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: false });

markdown.validateLink = (url: string): boolean => /^(https?:|mailto:|#)/i.test(url.trim());
markdown.renderer.rules.image = (tokens, index) => {
  const token = tokens[index];
  const alt = token ? markdown.utils.escapeHtml(token.content) : '';
  return `<span class="image-placeholder">[image: ${alt}]</span>`;
};
const defaultLinkOpen = markdown.renderer.rules.link_open ?? ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
markdown.renderer.rules.link_open = (tokens, index, options, env, self) => {
  tokens[index]?.attrSet('rel', 'noreferrer noopener');
  return defaultLinkOpen(tokens, index, options, env, self);
};

export function markdownToHtml(text: string): Html {
  return new Html(markdown.render(text));
}
