/* sr-pattern.c: the file name patterns of store drop-ins
 *
 * A pattern is literal text, "*" (any run of characters but "/") and at
 * most one "{app}" (a run of app id characters, at least one: the same
 * characters sr_app_id_validate() allows, "+" included, each matching
 * only itself). Matching is
 * greedy, like the regular expression it replaces: each "*" and "{app}"
 * takes the longest run that still lets the rest match. Failed
 * (token, position) pairs are remembered, so that no pattern, however many
 * stars it has, takes more than tokens × length² steps.
 *
 * GRegex did this before; PCRE2 and its JIT cost policyd half a megabyte
 * of resident memory for a handful of file name patterns.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-pattern"

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "sr-app-id.h"
#include "sr-pattern.h"

typedef enum { TOKEN_TEXT, TOKEN_STAR, TOKEN_APP } TokenKind;

typedef struct {
  TokenKind kind;
  const char *text;    /* TOKEN_TEXT: into SrPattern.source */
  gsize length;
} Token;

struct _SrPattern {
  char *source;        /* (owned) */
  Token *tokens;       /* (owned) */
  gsize n_tokens;
  gboolean has_app;
};

void
sr_pattern_free (SrPattern *self)
{
  g_free (self->source);
  g_free (self->tokens);
  g_free (self);
}

SrPattern *
sr_pattern_new (const char  *pattern,
                GError     **error)
{
  g_autoptr(SrPattern) self = g_new0 (SrPattern, 1);
  g_autoptr(GArray) tokens = g_array_new (FALSE, FALSE, sizeof (Token));
  gsize length = strlen (pattern);

  if (length == 0 || length > SR_PATTERN_MAX_LENGTH)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "Pattern: must be 1 to %d characters long", SR_PATTERN_MAX_LENGTH);
      return NULL;
    }
  if (strchr (pattern, '/') != NULL)
    {
      g_set_error_literal (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                           "Pattern: a file name cannot contain “/”");
      return NULL;
    }

  self->source = g_strdup (pattern);
  for (const char *p = self->source; *p != '\0';)
    {
      Token token = { TOKEN_TEXT, p, 0 };

      if (g_str_has_prefix (p, "{app}"))
        {
          if (self->has_app)
            {
              g_set_error_literal (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                                   "Pattern: {app} may appear once");
              return NULL;
            }
          self->has_app = TRUE;
          token.kind = TOKEN_APP;
          p += strlen ("{app}");
        }
      else if (*p == '*')
        {
          token.kind = TOKEN_STAR;
          p++;
          /* "**" is "*". */
          if (tokens->len > 0 && g_array_index (tokens, Token, tokens->len - 1).kind == TOKEN_STAR)
            continue;
        }
      else
        {
          /* Up to the next "*" or "{app}"; a "{" that starts no "{app}"
           * is text. */
          const char *end = p + 1;

          while (*end != '\0' && *end != '*' && !g_str_has_prefix (end, "{app}"))
            end++;
          token.length = end - p;
          p = end;
        }
      g_array_append_val (tokens, token);
    }

  self->tokens = g_array_steal (tokens, &self->n_tokens);
  return g_steal_pointer (&self);
}

/* Whether the pattern ends in literal text: then it matches only names
 * that end so ("{app}@*.state"), not every name ("*", "{app}*"). */
gboolean
sr_pattern_ends_in_text (const SrPattern *self)
{
  return self->n_tokens > 0 && self->tokens[self->n_tokens - 1].kind == TOKEN_TEXT;
}

gboolean
sr_pattern_has_app (const SrPattern *self)
{
  return self->has_app;
}

typedef struct {
  const SrPattern *pattern;
  const char *name;
  gsize length;
  guint8 *failed;      /* bit set: (token, position) known not to match */
  gsize app_start, app_length;
} Match;

static gboolean
match_from (Match *m,
            gsize  t,
            gsize  pos)
{
  gsize bit = t * (m->length + 1) + pos;
  const Token *token;
  gsize longest;

  if (t == m->pattern->n_tokens)
    return pos == m->length;
  if (m->failed[bit / 8] & (1u << (bit % 8)))
    return FALSE;

  token = &m->pattern->tokens[t];
  switch (token->kind)
    {
    case TOKEN_TEXT:
      if (m->length - pos >= token->length &&
          memcmp (m->name + pos, token->text, token->length) == 0 &&
          match_from (m, t + 1, pos + token->length))
        return TRUE;
      break;

    case TOKEN_STAR:
      for (longest = 0; pos + longest < m->length && m->name[pos + longest] != '/'; longest++)
        ;
      for (gsize k = longest + 1; k-- > 0;)
        if (match_from (m, t + 1, pos + k))
          return TRUE;
      break;

    case TOKEN_APP:
    default:
      for (longest = 0;
           pos + longest < m->length && sr_app_id_is_char (m->name[pos + longest]);
           longest++)
        ;
      for (gsize k = longest; k > 0; k--)
        if (match_from (m, t + 1, pos + k))
          {
            m->app_start = pos;
            m->app_length = k;
            return TRUE;
          }
      break;
    }

  m->failed[bit / 8] |= 1u << (bit % 8);
  return FALSE;
}

gboolean
sr_pattern_match (const SrPattern  *self,
                  const char       *name,
                  char            **out_app)
{
  Match m = { self, name, strlen (name), NULL, 0, 0 };
  gsize n_bits, n_bytes;
  guint8 stack_bits[256];
  g_autofree guint8 *heap_bits = NULL;
  gboolean matched;

  /* A file name is at most NAME_MAX (255) bytes; anything longer cannot
   * be one of ours. */
  if (m.length > 255)
    return FALSE;

  n_bits = (self->n_tokens + 1) * (m.length + 1);
  n_bytes = (n_bits + 7) / 8;
  if (n_bytes <= sizeof stack_bits)
    {
      memset (stack_bits, 0, n_bytes);
      m.failed = stack_bits;
    }
  else
    m.failed = heap_bits = g_malloc0 (n_bytes);

  matched = match_from (&m, 0, 0);
  if (matched && out_app != NULL)
    *out_app = self->has_app ? g_strndup (name + m.app_start, m.app_length) : NULL;
  return matched;
}
