/* settings: which files are settings files, what their sanitised copies keep and drop, and
 * what settings_read refuses to read (a link, a hard link, another's file, a big one). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/settings.h"
#include "tests/unit/tap.h"

static char *san(enum settings_kind k, const char *in)
{
	char *out = NULL;
	static char buf[4096];

	if (settings_sanitize(k, in, strlen(in), &out) < 0)
		return NULL;
	snprintf(buf, sizeof(buf), "%s", out);
	free(out);
	return buf;
}

static void kinds(void)
{
	is_int(settings_kind_of("/home/u", "/home/u/.npmrc"), SETTINGS_NPMRC, "~/.npmrc");
	is_int(settings_kind_of("/home/u", "/home/u/.config/pip/pip.conf"), SETTINGS_PIP,
	       "~/.config/pip/pip.conf");
	is_int(settings_kind_of("/home/u", "/home/u/.pip/pip.conf"), SETTINGS_PIP,
	       "~/.pip/pip.conf");
	is_int(settings_kind_of("/home/u", "/home/u/.netrc"), SETTINGS_NONE,
	       "~/.netrc is a secret");
	is_int(settings_kind_of("/home/u", "/home/uv/.npmrc"), SETTINGS_NONE,
	       "another home's .npmrc is not");
	is_int(settings_kind_of("/home/u", "/home/u/x/.npmrc"), SETTINGS_NONE,
	       "nor a project's .npmrc");
	is_int(settings_kind_of("/home/u", "/home/u/.npmrc/x"), SETTINGS_NONE, "nor below it");
	is_int(settings_kind_of("/home/u", "/home/u/.config/pnpm/rc"), SETTINGS_NPMRC,
	       "pnpm's ~/.config/pnpm/rc is an npmrc");
	is_int(settings_kind_of("/home/u", "/home/u/.yarnrc"), SETTINGS_YARNRC,
	       "yarn 1's ~/.yarnrc");
	is_int(settings_kind_of("/home/u", "/home/u/.yarnrc.yml"), SETTINGS_NONE,
	       "yarn 2's ~/.yarnrc.yml stays hidden whole");
	is_int(settings_kind_of("/home/u", "/home/u/.config/nix/nix.conf"), SETTINGS_NIX,
	       "~/.config/nix/nix.conf");
	is_int(settings_kind_of(NULL, "/.npmrc"), SETTINGS_NONE, "no home: none");
	is_int(settings_kind_of("/", "/.npmrc"), SETTINGS_NONE, "home / : none");
}

static void npmrc(void)
{
	is_str(san(SETTINGS_NPMRC, "registry=http://127.0.0.1:4873/\n"
				   "//registry.npmjs.org/:_authToken=SECRET\n"
				   "@acme:registry=https://npm.acme.test/\n"
				   "//npm.acme.test/:_auth = U0VDUkVU\n"
				   "//npm.acme.test/:_password=SECRET\n"
				   "//npm.acme.test/:username=bob\n"
				   "_authToken=SECRET\n"
				   "_auth=SECRET\n"
				   "save-exact=true\n"),
	       "registry=http://127.0.0.1:4873/\n"
	       "@acme:registry=https://npm.acme.test/\n"
	       "//npm.acme.test/:username=bob\n"
	       "save-exact=true\n",
	       "npmrc: tokens, _auth and _password dropped, the registry and the rest kept");
	is_str(san(SETTINGS_NPMRC, "# //r/:_authToken=SECRET\n; SECRET\n\nfoo=1\r\n"), "\nfoo=1\n",
	       "comments dropped (a commented-out token), blank lines and CRLF kept as lines");
	is_str(san(SETTINGS_NPMRC, "SECRETLINE\n  _AUTHTOKEN=SECRET\nNPM_TOKEN=SECRET\n"), "",
	       "a line without = dropped; keys matched in any case, after blanks");
	is_str(san(SETTINGS_NPMRC, "registry=https://bob:SECRET@r.test/npm/\n"),
	       "registry=https://r.test/npm/\n", "a URL's user:password@ removed");
	is_str(san(SETTINGS_NPMRC, "registry=https://b:SE@CRET@r.test\n"),
	       "registry=https://r.test\n", "…up to the last @ of the authority");
	is_str(san(SETTINGS_NPMRC, "x=https://r.test/a@b\n"), "x=https://r.test/a@b\n",
	       "an @ in the path is not userinfo");
	is_str(san(SETTINGS_NPMRC, "=SECRET\n"), "", "an empty key dropped");
	is_str(san(SETTINGS_NPMRC, "a=1"), "a=1\n", "no newline at the end");
	char *out = NULL;
	is_int(settings_sanitize(SETTINGS_NPMRC, "a=1\0b", 5, &out), -EINVAL, "a NUL refused");
	ok(out == NULL, "…with no output");
}

static void pip(void)
{
	is_str(san(SETTINGS_PIP, "[global]\n"
				 "index-url = https://user:SECRET@pypi.acme.test/simple\n"
				 "extra-index-url =\n"
				 "    https://u:SECRET@one.test/simple\n"
				 "    https://two.test/simple\n"
				 "timeout: 60\n"
				 "password = SECRET\n"
				 "    SECRET-continued\n"
				 "[install]\n"
				 "user = true\n"),
	       "[global]\n"
	       "index-url = https://pypi.acme.test/simple\n"
	       "extra-index-url =\n"
	       "    https://one.test/simple\n"
	       "    https://two.test/simple\n"
	       "timeout: 60\n"
	       "[install]\n"
	       "user = true\n",
	       "pip.conf: userinfo removed (continuations too), a password key and its "
	       "continuation dropped, sections and : kept");
	is_str(san(SETTINGS_PIP, "  orphan\n"), "", "a continuation with no key above dropped");
}

static void line_ends(void)
{
	is_str(san(SETTINGS_PIP, "[global]\rtimeout = 60\rpassword = SECRET\r"),
	       "[global]\ntimeout = 60\n",
	       "a lone CR ends a line (a CR-only pip.conf: the password "
	       "line is its own, and dropped)");
	is_str(san(SETTINGS_NPMRC, "a=1\r//r/:_authToken=SECRET\r\nb=2"), "a=1\nb=2\n",
	       "…in an npmrc too; CRLF is one line end");
}

static void gradle(void)
{
	is_int(settings_kind_of("/home/u", "/home/u/.gradle/gradle.properties"), SETTINGS_GRADLE,
	       "~/.gradle/gradle.properties");
	is_str(
	    san(SETTINGS_GRADLE, "org.gradle.jvmargs=-Xmx2g\n"
				 "org.gradle.parallel = true\n"
				 "signing.password=SECRET\n"
				 "signing.keyId=SECRET\n"
				 "signing.key=SECRET\n"
				 "mavenCentralToken: SECRET\n"
				 "ossrhPass SECRET\n"
				 "nexusPwd=SECRET\n"
				 "githubAuthHeader=SECRET\n"
				 "! SECRET\n"
				 "# SECRET\n"
				 "\n"
				 "systemProp.https.proxyHost=proxy.test\n"
				 "repoUrl=https://bob:SECRET@repo.test/maven\n"),
	    "org.gradle.jvmargs=-Xmx2g\n"
	    "org.gradle.parallel = true\n"
	    "\n"
	    "systemProp.https.proxyHost=proxy.test\n"
	    "repoUrl=https://repo.test/maven\n",
	    "gradle.properties: password, key, token, pass, pwd, auth keys and comments dropped, "
	    "the rest kept, URL userinfo removed");
	is_str(san(SETTINGS_GRADLE, "sign\\u0069ng.p\\u0061ssword=SECRET\n"
				    "a=1 \\\n"
				    "  SECRET-continued \\\n"
				    "  SECRET-more\n"
				    "b=\\\\\n"
				    "c=2\n"),
	       "c=2\n",
	       "a line with a backslash dropped (an escaped key), with its continuation lines; an "
	       "even run of backslashes continues nothing");
	is_str(san(SETTINGS_GRADLE, "lonely\n"), "", "a key with no separator dropped");
	is_str(san(SETTINGS_GRADLE, "a=1\rsigning.password=SECRET\r"), "a=1\n",
	       "a lone CR ends a properties line");
}

static void maven(void)
{
	is_int(settings_kind_of("/home/u", "/home/u/.m2/settings.xml"), SETTINGS_MAVEN,
	       "~/.m2/settings.xml");
	is_str(
	    san(SETTINGS_MAVEN,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<settings xmlns=\"http://maven.apache.org/SETTINGS/1.0.0\">\n"
		"  <!-- <password>SECRET</password> -->\n"
		"  <localRepository>/home/u/m2repo</localRepository>\n"
		"  <servers>\n"
		"    <server>\n"
		"      <id>acme</id>\n"
		"      <username>bob</username>\n"
		"      <password>SECRET</password>\n"
		"      <privateKey>/home/u/.ssh/id_rsa</privateKey>\n"
		"      <passphrase>SECRET</passphrase>\n"
		"      <configuration><httpHeaders><property><name>Private-Token</name>"
		"<value>SECRET</value></property></httpHeaders></configuration>\n"
		"    </server>\n"
		"  </servers>\n"
		"  <mirrors><mirror><id>m</id><url>https://bob:SECRET@repo.test/m2</url>"
		"<mirrorOf>*</mirrorOf></mirror></mirrors>\n"
		"  <profiles><profile><properties><gpg.passphrase>SECRET</gpg.passphrase>"
		"<sonar.login>SECRET</sonar.login><env>ci</env></properties></profile></profiles>\n"
		"</settings>\n"),
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<settings xmlns=\"http://maven.apache.org/SETTINGS/1.0.0\">\n"
	    "  \n"
	    "  <localRepository>/home/u/m2repo</localRepository>\n"
	    "  <servers>\n"
	    "    <server>\n"
	    "      <id>acme</id>\n"
	    "      <username>bob</username>\n"
	    "      \n"
	    "      \n"
	    "      \n"
	    "      \n"
	    "    </server>\n"
	    "  </servers>\n"
	    "  <mirrors><mirror><id>m</id><url>https://repo.test/m2</url>"
	    "<mirrorOf>*</mirrorOf></mirror></mirrors>\n"
	    "  <profiles><profile><properties><env>ci</env></properties></profile></profiles>\n"
	    "</settings>\n",
	    "settings.xml: password, privateKey, passphrase, a server's configuration, "
	    "comments and secret properties dropped, userinfo removed, the rest kept");
	is_str(san(SETTINGS_MAVEN,
		   "<s><url>https://u:SECRET&#64;h/</url><a x='https://u:SECRET&#64;h' "
		   "token=\"SECRET\"/><![CDATA[SECRET]]><p/></s>"),
	       "<s><url></url><a x=''/><p/></s>\n",
	       "a text or value with an entity emptied, a secret attribute and CDATA dropped");
	ok(san(SETTINGS_MAVEN, "<!DOCTYPE s [<!ENTITY e \"x\">]><s>&e;</s>") == NULL,
	   "a DOCTYPE refused");
	ok(san(SETTINGS_MAVEN, "<s><password>SECRET</s>") == NULL, "a mismatched end tag refused");
	ok(san(SETTINGS_MAVEN, "<s><password>SECRET") == NULL, "an unclosed element refused");
	ok(san(SETTINGS_MAVEN, "<s/><password>SECRET</password>") == NULL, "a second root refused");
	ok(san(SETTINGS_MAVEN, "<s a=b/>") == NULL, "an unquoted attribute refused");
	ok(san(SETTINGS_MAVEN, "<s><!-- SECRET </s>") == NULL, "an unclosed comment refused");
	ok(san(SETTINGS_MAVEN, "") == NULL, "no root refused");
	char deep[400] = "";
	for (int i = 0; i < 70; i++)
		strcat(deep, "<a>");
	ok(san(SETTINGS_MAVEN, deep) == NULL, "nesting past the bound refused");
	is_str(san(SETTINGS_MAVEN, "<s><x:Password>SECRET</x:Password><id>1</id></s>"),
	       "<s><id>1</id></s>\n", "a prefixed secret element dropped");
}

static void docker(void)
{
	is_str(
	    san(SETTINGS_DOCKER,
		"{\n  \"auths\": {\n    \"https://index.docker.io/v1/\": {\"auth\": "
		"\"U0VDUkVU\"},\n"
		"    \"ghcr.io\": {\"auth\": \"X\", \"identitytoken\": \"SECRET\", \"email\": "
		"\"a@b\"}\n"
		"  },\n  \"credsStore\": \"desktop\",\n  \"credHelpers\": {\"gcr.io\": "
		"\"gcloud\"},\n"
		"  \"proxies\": {\"default\": {\"httpProxy\": \"http://u:SECRET@proxy:3128\"}},\n"
		"  \"n\": [1, -2.5e3, true, null, {\"registrytoken\": \"SECRET\"}]\n}\n"),
	    "{\"auths\":{\"https://index.docker.io/v1/\":{},\"ghcr.io\":{\"email\":\"a@b\"}},"
	    "\"credsStore\":\"desktop\",\"credHelpers\":{\"gcr.io\":\"gcloud\"},"
	    "\"proxies\":{\"default\":{\"httpProxy\":\"http://proxy:3128\"}},"
	    "\"n\":[1,-2.5e3,true,null,{}]}\n",
	    "config.json: auth, identitytoken, registrytoken and URL userinfo removed, the rest "
	    "kept");
	is_str(san(SETTINGS_DOCKER, "{\"a\\u0075th\": \"SECRET\", \"AUTH\": \"SECRET\", \"k\": 1}"),
	       "{\"k\":1}\n", "a key with an escape, or AUTH in capitals, is dropped");
	is_str(san(SETTINGS_DOCKER, "{\"p\": \"http:\\/\\/u:SECRET@h\"}"), "{\"p\":\"\"}\n",
	       "an escaped URL with an @ is emptied");
	is_str(san(SETTINGS_DOCKER, "{}"), "{}\n", "an empty object");
	ok(san(SETTINGS_DOCKER, "{\"auths\": {\"x\": {\"auth\": \"SECRET\"}}") == NULL,
	   "unterminated JSON refused");
	ok(san(SETTINGS_DOCKER, "{\"a\": 1} {\"auth\": \"SECRET\"}") == NULL,
	   "trailing text refused");
	ok(san(SETTINGS_DOCKER, "[\"x\"]") == NULL, "a top level that is not an object refused");
	ok(san(SETTINGS_DOCKER, "{\"a\": \"x\ny\"}") == NULL, "a raw newline in a string refused");
	ok(san(SETTINGS_DOCKER, "{\"a\": bogus}") == NULL, "a bare word refused");
	char deep[200] = "{\"a\":";
	for (int i = 0; i < 40; i++)
		strcat(deep, "[");
	ok(san(SETTINGS_DOCKER, deep) == NULL, "nesting past the bound refused");
	is_int(settings_kind_of("/home/u", "/home/u/.docker/config.json"), SETTINGS_DOCKER,
	       "~/.docker/config.json");
}

static void reading(void)
{
	char dir[] = "/tmp/test_settings.XXXXXX", f[256], l[256], h[256], big[256];
	char *t = NULL;
	size_t n = 0;

	if (!mkdtemp(dir)) {
		skip("mkdtemp failed", "settings_read");
		return;
	}
	snprintf(f, sizeof(f), "%s/npmrc", dir);
	snprintf(l, sizeof(l), "%s/link", dir);
	snprintf(h, sizeof(h), "%s/hard", dir);
	snprintf(big, sizeof(big), "%s/big", dir);
	FILE *fp = fopen(f, "w");
	fputs("registry=x\n", fp);
	fclose(fp);
	is_int(settings_read(f, getuid(), &t, &n), 0, "a plain file of the user is read");
	ok(t && n == 11 && strcmp(t, "registry=x\n") == 0, "…whole, NUL-terminated");
	free(t);
	is_int(settings_read(f, getuid() + 1, &t, &n), -EPERM, "another owner's file is not");
	ok(t == NULL, "…and nothing is returned");
	if (symlink(f, l) == 0)
		is_int(settings_read(l, getuid(), &t, &n), -ELOOP, "a symlink is not followed");
	else
		skip("symlink failed", "a symlink is not followed");
	if (link(f, h) == 0)
		is_int(settings_read(f, getuid(), &t, &n), -EPERM,
		       "a file with a hard link is not");
	else
		skip("link failed", "a file with a hard link is not");
	unlink(h);
	is_int(settings_read(dir, getuid(), &t, &n), -EPERM, "a directory is not");
	fp = fopen(big, "w");
	for (int i = 0; i <= SETTINGS_MAX; i++)
		fputc('a', fp);
	fclose(fp);
	is_int(settings_read(big, getuid(), &t, &n), -EFBIG, "a file above SETTINGS_MAX is not");
	unlink(big);
	unlink(l);
	unlink(f);
	rmdir(dir);
}

static void yarnrc_nix(void)
{
	is_str(san(SETTINGS_YARNRC, "# yarn lockfile v1\n"
				    "registry \"https://bob:SECRET@npm.acme.test/\"\n"
				    "\"//npm.acme.test/:_authToken\" \"SECRET\"\n"
				    "//registry.npmjs.org/:_authToken SECRET\n"
				    "_auth SECRET\n"
				    "\n"
				    "\"--install.frozen-lockfile\" true\n"
				    "lastUpdateCheck 1700000000000\n"
				    "  nested SECRET\n"
				    "\"unclosed SECRET\n"
				    "\"a\\\"_authToken\" SECRET\n"
				    "novalue\n"),
	       "registry \"https://npm.acme.test/\"\n"
	       "\n"
	       "\"--install.frozen-lockfile\" true\n"
	       "lastUpdateCheck 1700000000000\n",
	       "yarnrc: tokens (quoted key or bare) and _auth dropped, a URL's userinfo removed, "
	       "comments, indented, unclosed, escaped and value-less lines dropped, the rest kept");
	is_str(san(SETTINGS_NIX,
		   "experimental-features = nix-command flakes\n"
		   "access-tokens = github.com=ghp_SECRET\n"
		   "extra-access-tokens = gitlab.com=PAT:SECRET\n"
		   "!include secret.conf\n"
		   "substituters = https://u:SECRET@cache.acme.test https://cache.nixos.org\n"
		   "# access-tokens = github.com=SECRET\n"),
	       "experimental-features = nix-command flakes\n"
	       "substituters = https://cache.acme.test https://cache.nixos.org\n",
	       "nix.conf: access-tokens (and extra-) dropped, an include dropped, a substituter's "
	       "userinfo removed, the rest kept");
}

int main(void)
{
	kinds();
	npmrc();
	yarnrc_nix();
	pip();
	docker();
	line_ends();
	gradle();
	maven();
	reading();
	return tap_done();
}
