package config

import (
	"strings"
	"testing"
)

func TestChannelAndWebhookErrorsNameTheKey(t *testing.T) {
	for _, tt := range []struct {
		name string
		body string
		want string
	}{
		{"discord without token_env", `{"schema_version":1,"channels":{"discord":{"enabled":true}}}`, "channels.discord.token_env"},
		{"discord channel id", `{"schema_version":1,"channels":{"discord":{"respond_to_all_channels":["general"]}}}`, "channels.discord.respond_to_all_channels[0]"},
		{"slack without tokens", `{"schema_version":1,"channels":{"slack":{"enabled":true,"app_token_env":"A"}}}`, "channels.slack.bot_token_env"},
		{"slack typo", `{"schema_version":1,"channels":{"slack":{"bot_token":"x"}}}`, `unknown key "channels.slack.bot_token"`},
		{"routes without listen", `{"schema_version":1,"webhooks":{"routes":[{"name":"gh","path":"/h","secret_env":"S"}]}}`, "webhooks.listen"},
		{"listen without routes", `{"schema_version":1,"webhooks":{"listen":"127.0.0.1:8787"}}`, "webhooks.routes"},
		{"bad listen", `{"schema_version":1,"webhooks":{"listen":"8787","routes":[{"name":"gh","path":"/h","secret_env":"S"}]}}`, "webhooks.listen"},
		{"no secret", `{"schema_version":1,"webhooks":{"listen":":8787","routes":[{"name":"gh","path":"/h"}]}}`, "webhooks.routes[0].secret_env"},
		{"relative path", `{"schema_version":1,"webhooks":{"listen":":8787","routes":[{"name":"gh","path":"h","secret_env":"S"}]}}`, "webhooks.routes[0].path"},
		{"duplicate path", `{"schema_version":1,"webhooks":{"listen":":8787","routes":[{"name":"a","path":"/h","secret_env":"S"},{"name":"b","path":"/h","secret_env":"T"}]}}`, "webhooks.routes[1].path"},
		{"unknown agent", `{"schema_version":1,"webhooks":{"listen":":8787","routes":[{"name":"gh","path":"/h","secret_env":"S","agent":"ghost"}]}}`, "webhooks.routes[0].agent"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeConfig(t, tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load = %v, want an error naming %s", err, tt.want)
			}
		})
	}
}

func TestChannelSecretsComeFromTheEnvironment(t *testing.T) {
	t.Setenv("JOSHBOT_TEST_DC", " dc-token ")
	d := Discord{TokenEnv: "JOSHBOT_TEST_DC"}
	if tok, err := d.DiscordToken(); err != nil || tok != "dc-token" {
		t.Fatalf("DiscordToken = %q, %v", tok, err)
	}
	s := Slack{AppTokenEnv: "JOSHBOT_TEST_UNSET_APP", BotTokenEnv: "JOSHBOT_TEST_DC"}
	if _, _, err := s.Tokens(); err == nil || !strings.Contains(err.Error(), "channels.slack.app_token_env names JOSHBOT_TEST_UNSET_APP") {
		t.Fatalf("Tokens = %v", err)
	}
	r := WebhookRoute{SecretEnv: "JOSHBOT_TEST_UNSET_SECRET"}
	if _, err := r.Secret("webhooks.routes[0]"); err == nil || !strings.Contains(err.Error(), "webhooks.routes[0].secret_env") {
		t.Fatalf("Secret = %v", err)
	}
}
