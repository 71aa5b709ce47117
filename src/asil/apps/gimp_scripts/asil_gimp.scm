; ASIL's Script-Fu helpers, loaded once into the warm GIMP session (asil/apps/gimp.py).
; Python sends only calls of these procedures with literal, escaped arguments; the state goes
; back as JSON written to a file (the Script-Fu server's replies are capped at 64 KiB).

; ------------------------------------------------------------------ JSON writing
; Written straight to a file port: building strings with string-append in TinyScheme is slow.
; Strings go out through `write`; Python turns its rare \xHH; escapes into JSON ones.
(define asil-port #f)
(define (asil-put x) (display x asil-port))
(define (asil-put-str s) (write s asil-port))
(define (asil-put-num x)
  (asil-put (if (integer? x) (inexact->exact (round x)) (/ (round (* x 10000)) 10000.0))))
(define (asil-put-bool b) (asil-put (if b "true" "false")))
(define (asil-key name first)
  (if (not first) (asil-put ","))
  (write name asil-port)
  (asil-put ":"))

(define (asil-put-list items put-item)
  (asil-put "[")
  (let loop ((rest items) (first #t))
    (if (pair? rest)
        (begin (if (not first) (asil-put ","))
               (put-item (car rest))
               (loop (cdr rest) #f))))
  (asil-put "]"))

; ------------------------------------------------------------------ reading the state
(define (asil-layers img) (vector->list (cadr (gimp-image-get-layers img))))
(define (asil-children group) (vector->list (cadr (gimp-item-get-children group))))
(define (asil-group? layer) (= (car (gimp-item-is-group layer)) 1))

; Every layer in stack order, each group followed by its children: (layer parent position group?)
; entries, parent 0 at the top level, position counted among the layer's siblings (0 = top).
(define (asil-tree img)
  (let walk ((items (asil-layers img)) (parent 0) (position 0))
    (if (null? items) '()
        (let* ((layer (car items)) (group (asil-group? layer)))
          (cons (list layer parent position group)
                (append (if group (walk (asil-children layer) layer 0) '())
                        (walk (cdr items) parent (+ position 1))))))))

(define (asil-count d channel lo hi)
  (list-ref (gimp-drawable-histogram d channel (/ lo 255.0) (/ hi 255.0)) 4))

; Smallest (or largest) 8-bit level present in a channel, by bisecting histogram ranges
; between 0 and the mean (or the mean and 255).
(define (asil-min-level d channel hi)
  (let loop ((lo 0) (hi hi))
    (if (>= lo hi) lo
        (let ((mid (quotient (+ lo hi) 2)))
          (if (> (asil-count d channel 0 mid) 0) (loop lo mid) (loop (+ mid 1) hi))))))

(define (asil-max-level d channel lo)
  (let loop ((lo lo) (hi 255))
    (if (>= lo hi) lo
        (let ((mid (quotient (+ lo hi 1) 2)))
          (if (> (asil-count d channel mid 255) 0) (loop mid hi) (loop lo (- mid 1)))))))

(define (asil-put-channel d channel name first)
  (let* ((h (gimp-drawable-histogram d channel 0.0 1.0))
         (mean (car h)) (std (cadr h)) (pixels (list-ref h 3))
         (flat (< std 0.001)))
    (asil-key name first)
    (if (<= pixels 0)
        (asil-put "null")
        (begin
          (asil-put "{")
          (asil-key "mean" #t) (asil-put-num mean)
          (asil-key "std" #f) (asil-put-num std)
          (asil-key "median" #f) (asil-put-num (caddr h))
          (asil-key "min" #f)
          (asil-put-num (if flat (round mean) (asil-min-level d channel (min 255 (inexact->exact (ceiling mean))))))
          (asil-key "max" #f)
          (asil-put-num (if flat (round mean) (asil-max-level d channel (max 0 (inexact->exact (floor mean))))))
          (asil-key "pixels" #f) (asil-put-num pixels)
          (asil-put "}")))))

(define (asil-put-stats d)
  (let* ((color (= (car (gimp-drawable-is-rgb d)) 1))
         (alpha (= (car (gimp-drawable-has-alpha d)) 1))
         (channels (append (if color (list (cons 1 "red") (cons 2 "green") (cons 3 "blue")) (list (cons 0 "value")))
                           (if alpha (list (cons 4 "alpha")) '()))))
    (asil-put "{")
    (let loop ((rest channels) (first #t))
      (if (pair? rest)
          (begin (asil-put-channel d (caar rest) (cdar rest) first)
                 (loop (cdr rest) #f))))
    (asil-put "}")))

(define (asil-put-layer entry want-stats)
  (let* ((layer (car entry))
         (offsets (gimp-drawable-offsets layer))
         (text (= (car (gimp-item-is-text-layer layer)) 1))
         (group (cadddr entry)))
    (asil-put "{")
    (asil-key "id" #t) (asil-put-num layer)
    (asil-key "parent" #f) (asil-put-num (cadr entry))
    (asil-key "index" #f) (asil-put-num (caddr entry))
    (asil-key "name" #f) (asil-put-str (car (gimp-item-get-name layer)))
    (asil-key "width" #f) (asil-put-num (car (gimp-drawable-width layer)))
    (asil-key "height" #f) (asil-put-num (car (gimp-drawable-height layer)))
    (asil-key "offset_x" #f) (asil-put-num (car offsets))
    (asil-key "offset_y" #f) (asil-put-num (cadr offsets))
    (asil-key "opacity" #f) (asil-put-num (car (gimp-layer-get-opacity layer)))
    (asil-key "visible" #f) (asil-put-bool (= (car (gimp-item-get-visible layer)) 1))
    (asil-key "mode" #f) (asil-put-num (car (gimp-layer-get-mode layer)))
    (asil-key "group" #f) (asil-put-bool group)
    (asil-key "text" #f) (if text (asil-put-str (car (gimp-text-layer-get-text layer))) (asil-put "null"))
    (if text
        (begin (asil-key "font" #f) (asil-put-str (car (gimp-text-layer-get-font layer)))
               (asil-key "font_size" #f) (asil-put-num (car (gimp-text-layer-get-font-size layer)))
               (asil-key "text_color" #f) (asil-put-list (car (gimp-text-layer-get-color layer)) asil-put-num)))
    (if (and want-stats (not group))
        (begin (asil-key "stats" #f) (asil-put-stats layer)))
    (asil-put "}")))

(define (asil-keep keep? items)
  (cond ((null? items) '())
        ((keep? (car items)) (cons (car items) (asil-keep keep? (cdr items))))
        (else (asil-keep keep? (cdr items)))))

(define (asil-page items offset limit)
  (let loop ((rest items) (i 0) (out '()))
    (cond ((null? rest) (reverse out))
          ((>= i (+ offset limit)) (reverse out))
          ((< i offset) (loop (cdr rest) (+ i 1) out))
          (else (loop (cdr rest) (+ i 1) (cons (cons i (car rest)) out))))))

; Histograms only count selected pixels: lift the selection while measuring whole layers.
(define (asil-without-selection img thunk)
  (if (= (car (gimp-selection-is-empty img)) 1)
      (thunk)
      (let* ((saved (car (gimp-selection-save img))) (result (begin (gimp-selection-none img) (thunk))))
        (gimp-image-select-item img CHANNEL-OP-REPLACE saved)
        (gimp-image-remove-channel img saved)
        result)))

; Write the image's state to PATH: size, mode, selection, all layer names (groups followed by their
; children), and one page of layers in full; pixel statistics for all but the layer ids in STATS-SKIP
; (Python caches those).
(define (asil-state img path offset limit stats-skip)
  (let* ((tree (asil-tree img))
         (layers (map car tree))
         (bounds (gimp-selection-bounds img))
         (active (car (gimp-image-get-active-layer img))))
    (set! asil-port (open-output-file path))
    (asil-put "{")
    (asil-key "width" #t) (asil-put-num (car (gimp-image-width img)))
    (asil-key "height" #f) (asil-put-num (car (gimp-image-height img)))
    (asil-key "mode" #f) (asil-put-num (car (gimp-image-base-type img)))
    (asil-key "precision" #f) (asil-put-num (car (gimp-image-get-precision img)))
    (asil-key "active" #f) (if (> active 0) (asil-put-str (car (gimp-item-get-name active))) (asil-put "null"))
    (asil-key "selection" #f) (if (= (car bounds) 1) (asil-put-list (cdr bounds) asil-put-num) (asil-put "null"))
    (asil-key "names" #f) (asil-put-list layers (lambda (l) (asil-put-str (car (gimp-item-get-name l)))))
    (asil-key "ids" #f) (asil-put-list layers asil-put-num)
    (asil-key "parents" #f) (asil-put-list tree (lambda (e) (asil-put-num (cadr e))))
    (asil-key "groups" #f) (asil-put-list (map car (asil-keep cadddr tree)) asil-put-num)
    (asil-key "total" #f) (asil-put-num (length layers))
    (asil-key "layers" #f)
    (asil-without-selection img
      (lambda () (asil-put-list (asil-page tree offset limit)
                                (lambda (p) (asil-put-layer (cdr p) (not (memv (cadr p) stats-skip)))))))
    (asil-put "}")
    (close-output-port asil-port)
    #t))

; ------------------------------------------------------------------ files
(define (asil-open path)
  (let ((img (car (gimp-file-load RUN-NONINTERACTIVE path path))))
    (gimp-image-undo-disable img)
    img))

(define (asil-close img) (gimp-image-delete img) #t)

(define (asil-save-xcf img path)
  (gimp-xcf-save 0 img (car (gimp-image-get-active-drawable img)) path path) #t)

; Export a flattened copy: the working image keeps its layers.
(define (asil-export img path kind quality)
  (let* ((copy (car (gimp-image-duplicate img)))
         (flat (car (gimp-image-merge-visible-layers copy CLIP-TO-IMAGE))))
    (if (string=? kind "jpeg")
        (begin (if (= (car (gimp-drawable-has-alpha flat)) 1) (gimp-layer-flatten flat))
               (file-jpeg-save RUN-NONINTERACTIVE copy flat path path quality 0 1 0 "" 0 1 0 2))
        (file-png-save2 RUN-NONINTERACTIVE copy flat path path 0 9 0 0 0 0 0 0 0))
    (gimp-image-delete copy)
    #t))

; ------------------------------------------------------------------ edits
(define (asil-color rgb) (gimp-context-set-foreground rgb))

; PARENT is a layer group, or 0 for the top level; POSITION counts among its children.
(define (asil-add-layer img name width height x y opacity fill rgb parent position)
  (let ((layer (car (gimp-layer-new img width height RGBA-IMAGE name opacity LAYER-MODE-NORMAL))))
    (gimp-image-insert-layer img layer parent position)
    (gimp-layer-set-offsets layer x y)
    (cond ((string=? fill "color") (gimp-context-set-foreground rgb) (gimp-drawable-fill layer FILL-FOREGROUND))
          ((string=? fill "white") (gimp-drawable-fill layer FILL-WHITE))
          ((string=? fill "transparent") (gimp-drawable-fill layer FILL-TRANSPARENT)))
    layer))

(define (asil-text-layer img text x y size font rgb name parent position)
  (gimp-context-set-foreground rgb)
  (let ((layer (car (gimp-text-layer-new img text font size UNIT-PIXEL))))
    (gimp-image-insert-layer img layer parent position)
    (gimp-layer-set-offsets layer x y)
    (if (> (string-length name) 0) (gimp-item-set-name layer name))
    layer))

(define (asil-fill img layer rgb)
  (gimp-context-set-foreground rgb)
  (gimp-drawable-edit-fill layer FILL-FOREGROUND)
  #t)

(define (asil-blur img layer radius)
  (plug-in-gauss RUN-NONINTERACTIVE img layer radius radius 1) #t)

(define (asil-sharpen img layer radius amount)
  (plug-in-unsharp-mask RUN-NONINTERACTIVE img layer radius amount 0) #t)

(define (asil-set-offsets layer x y)
  (let ((now (gimp-drawable-offsets layer)))
    (gimp-layer-set-offsets layer (if x x (car now)) (if y y (cadr now)))
    #t))

; Groups take their size from their children, so only the painted layers are resized.
(define (asil-layers-to-image img)
  (for-each (lambda (l) (gimp-layer-resize-to-image-size l))
            (map car (asil-keep (lambda (e) (not (cadddr e))) (asil-tree img))))
  #t)

(define (asil-add-group img name parent position)
  (let ((group (car (gimp-layer-group-new img))))
    (gimp-image-insert-layer img group parent position)
    (gimp-item-set-name group name)
    group))

(define (asil-gradient layer from to width)
  (gimp-context-set-foreground from)
  (gimp-context-set-background to)
  (gimp-context-set-gradient "FG to BG (RGB)")
  (gimp-drawable-edit-gradient-fill layer GRADIENT-LINEAR 0 FALSE 1 0 FALSE 0 0 (- width 1) 0)
  #t)

(define (asil-ellipse-layer img name width height x y opacity rgb parent)
  (let ((layer (asil-add-layer img name width height x y opacity "transparent" rgb parent 0)))
    (gimp-image-select-ellipse img CHANNEL-OP-REPLACE x y width height)
    (asil-fill img layer rgb)
    (gimp-selection-none img)
    layer))

; File > Open as Layers: PATH becomes a new layer at X, Y, scaled to WIDTH x HEIGHT unless they are 0.
(define (asil-place-image img path name x y width height opacity parent position)
  (let ((layer (car (gimp-file-load-layer RUN-NONINTERACTIVE img path))))
    (gimp-image-insert-layer img layer parent position)
    (if (> (string-length name) 0) (gimp-item-set-name layer name))
    (if (> width 0)
        (begin (gimp-context-set-interpolation INTERPOLATION-CUBIC)
               (gimp-layer-scale layer width height TRUE)))
    (gimp-layer-set-offsets layer x y)
    (gimp-layer-set-opacity layer opacity)
    layer))
