package web

import "net/http"

// Pages not written yet answer 404.
func (s *Server) createForm(w http.ResponseWriter, r *http.Request)      { s.notFound(w, r) }
func (s *Server) createSubmit(w http.ResponseWriter, r *http.Request)    { s.notFound(w, r) }
func (s *Server) preview(w http.ResponseWriter, r *http.Request)         { s.notFound(w, r) }
func (s *Server) audit(w http.ResponseWriter, r *http.Request)           { s.notFound(w, r) }
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request)       { s.notFound(w, r) }
func (s *Server) signUpForm(w http.ResponseWriter, r *http.Request)      { s.notFound(w, r) }
func (s *Server) signUpSubmit(w http.ResponseWriter, r *http.Request)    { s.notFound(w, r) }
func (s *Server) signInForm(w http.ResponseWriter, r *http.Request)      { s.notFound(w, r) }
func (s *Server) signInSubmit(w http.ResponseWriter, r *http.Request)    { s.notFound(w, r) }
func (s *Server) signOut(w http.ResponseWriter, r *http.Request)         { s.notFound(w, r) }
func (s *Server) tokenPage(w http.ResponseWriter, r *http.Request)       { s.notFound(w, r) }
func (s *Server) tokenRegenerate(w http.ResponseWriter, r *http.Request) { s.notFound(w, r) }
func (s *Server) accountForm(w http.ResponseWriter, r *http.Request)     { s.notFound(w, r) }
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request)  { s.notFound(w, r) }
func (s *Server) deleteAccount(w http.ResponseWriter, r *http.Request)   { s.notFound(w, r) }
