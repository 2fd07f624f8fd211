package web

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"hush/internal/i18n"
	"hush/internal/push"
	"hush/internal/service"
)

// The account pages in the page's language (docs/decisions.md, D52). The
// service's refusals stay English, since the API's clients match on them;
// the pages translate each message they know (serviceMessages), and show
// an unknown one as it is.

// serviceMessages are the catalog keys of the service's messages that the
// account pages, and the refusal pages of every other (fail), show.
var serviceMessages = map[string]string{
	service.MsgBadEmail:          "account.msg.bad_email",
	service.MsgBadCredentials:    "account.msg.bad_credentials",
	service.MsgWrongPassword:     "account.msg.wrong_password",
	service.MsgEmailTaken:        "account.msg.email_taken",
	service.MsgDisabled:          "account.msg.disabled",
	msgPasswordShort:             "account.msg.password_short",
	msgPasswordLong:              "account.msg.password_long",
	msgPasswordConfirm:           "account.msg.password_confirm",
	service.MsgBadCode:           "account.msg.bad_code",
	service.MsgCodeUsed:          "account.msg.code_used",
	service.MsgSignInExpired:     "account.msg.sign_in_expired",
	service.MsgEnrolmentGone:     "account.msg.enrolment_gone",
	service.MsgTwoFactorOn:       "account.msg.two_factor_on",
	service.MsgTwoFactorRequired: "account.msg.two_factor_required",
	service.MsgResetInvalid:      "account.msg.reset_invalid",
	service.MsgConfirmInvalid:    "account.msg.confirm_invalid",
	service.MsgConfirmPassword:   "account.msg.confirm_password",
	service.MsgBadOrUnconfirmed:  "account.msg.bad_or_unconfirmed",
	service.MsgEmailNotAllowed:   "account.msg.email_not_allowed",
	service.MsgSSOFailed:         "account.msg.sso_failed",
	service.MsgSSOExpired:        "account.msg.sso_expired",
	service.MsgSSOUnverified:     "account.msg.sso_unverified",
	service.MsgSSODomain:         "account.msg.sso_domain",
	service.MsgSSONoAccount:      "account.msg.sso_no_account",
	service.MsgSSOLinkedOther:    "account.msg.sso_linked_other",
	service.MsgSSOSignInFirst:    "account.msg.sso_sign_in_first",
	service.MsgPasswordOff:       "account.msg.password_off",
	service.MsgSignIn:            "account.msg.sign_in",
	service.MsgNotDeletable:      "message.not_deletable",
	service.MsgNotYourOwn:        "admin.not_your_own",
	service.MsgLastAdmin:         "account.msg.last_admin",
	msgReceiptsOff:               "account.msg.receipts_off",
	msgHookTurnedOff:             "webhooks.msg.turned_off",
	msgHookWaiting:               "webhooks.msg.waiting",
	msgHookNoMessage:             "webhooks.msg.no_message",
	msgHookAdminOnly:             "webhooks.msg.admin_only",
}

// The service's messages without an exported name, as it writes them.
const (
	msgPasswordShort   = "The password must be at least 8 characters long."
	msgPasswordLong    = "The password must be at most 256 characters long."
	msgPasswordConfirm = "The password and its confirmation do not match."
	msgReceiptsOff     = "Receipts are not available: this server sends no email."
	msgHookTurnedOff   = "The endpoint is turned off; turn it on first."
	msgHookWaiting     = "A delivery of this message is already waiting."
	msgHookNoMessage   = "No message to send again."
	msgHookAdminOnly   = "Only an admin may add endpoints for the whole instance."
)

// retryMessages are the service's "too many" messages, which end with
// when to try again ("in a minute", "in 5 minutes"): by their beginning,
// the plural key that says it with the minutes as its count.
var retryMessages = map[string]string{
	"Too many sign-in attempts. Please try again ":                        "account.msg.too_many_sign_ins",
	"Too many wrong codes. Please try again ":                             "account.msg.too_many_codes",
	"Too many accounts were created from your address. Please try again ": "account.msg.too_many_sign_ups",
	"Too many emails were asked for. Please try again ":                   "account.msg.too_many_mails",
}

var retryIn = regexp.MustCompile(`^in (?:a|(\d+)) minutes?\.$`)

// say is the service's message msg in loc's language; a message the
// pages do not know is shown as it is.
func say(loc *i18n.Localizer, msg string) string {
	if key, ok := serviceMessages[msg]; ok {
		return loc.T(key, nil)
	}
	for prefix, key := range retryMessages {
		rest, ok := strings.CutPrefix(msg, prefix)
		if !ok {
			continue
		}
		if m := retryIn.FindStringSubmatch(rest); m != nil {
			n := 1
			if m[1] != "" {
				n, _ = strconv.Atoi(m[1])
			}
			return loc.N(key, n, nil)
		}
	}
	return msg
}

// sayIn is say in the request's page language.
func (s *Server) sayIn(r *http.Request, msg string) string { return say(s.localizer(r), msg) }

// hookFieldMessages are the keys of the service's complaints about a
// webhook form's fields, by field and message.
var hookFieldMessages = map[string]string{
	"url can't be blank":                                          "webhooks.msg.url_blank",
	"url is too long (maximum is 2048 characters)":                "webhooks.msg.url_long",
	"url is not a valid URL":                                      "webhooks.msg.url_invalid",
	"url must use https":                                          "webhooks.msg.url_https",
	"url must be an https URL":                                    "webhooks.msg.url_https",
	"url must not hold a user name or password":                   "webhooks.msg.url_userinfo",
	"url must not hold a fragment (#)":                            "webhooks.msg.url_fragment",
	"url has an invalid port":                                     "webhooks.msg.url_port",
	"url must not name a private, loopback or link-local address": "webhooks.msg.url_private",
	"url must not hold a control or formatting character":         "webhooks.msg.url_hidden",
	"events can't be empty":                                       "webhooks.msg.events_empty",
}

var notAnEvent = regexp.MustCompile(`^"(.*)" is not an event \((.*)\)$`)

// hookFieldMessage is one complaint about a webhook form's field, as a
// sentence in loc's language.
func hookFieldMessage(loc *i18n.Localizer, field, msg string) string {
	if field == "base" {
		return say(loc, msg)
	}
	if key, ok := hookFieldMessages[field+" "+msg]; ok {
		return loc.T(key, nil)
	}
	if m := notAnEvent.FindStringSubmatch(msg); field == "events" && m != nil {
		return loc.T("webhooks.msg.not_an_event", map[string]any{"Event": m[1], "Events": m[2]})
	}
	prefix := map[string]string{"url": "The URL ", "events": "The events "}[field]
	return prefix + msg + "."
}

// hookDisabled is the service's reason for turning an endpoint off, as
// the store keeps it, in loc's language.
var hookDisabled = regexp.MustCompile(`^every delivery failed for a day \(since (.+)\)$`)

func hookReason(loc *i18n.Localizer, reason string) string {
	if m := hookDisabled.FindStringSubmatch(reason); m != nil {
		return loc.T("webhooks.reason_failing", map[string]any{"Since": m[1]})
	}
	if reason == push.HookOffLinked {
		return loc.T("webhooks.reason_linked", nil)
	}
	return reason
}

// hookAnswered is a delivery's error when the endpoint answered, but not
// with success.
var hookAnswered = regexp.MustCompile(`^the endpoint answered (\d+)$`)

func hookAttemptError(loc *i18n.Localizer, e string) string {
	if m := hookAnswered.FindStringSubmatch(e); m != nil {
		return loc.T("webhooks.answered", map[string]any{"Status": m[1]})
	}
	return e
}

// defaultSSOLabel is the sign-in button's text when the operator sets none
// (HUSH_OIDC_BUTTON_LABEL): it is shown in the page's language instead.
const defaultSSOLabel = "Sign in with single sign-on"

// question is the confirmation key asks, in the request's language.
func (s *Server) question(r *http.Request, key string) question {
	q, _ := localQuestion(s.localizer(r), key)
	return q
}
